#pragma once
// Lab 4 binding: grid-stride kernels, launched with the configuration the lab file chose.
#include <stdexcept>
#include <string>

#include "bindings/reduction_part.cuh"

namespace LAB_IMPL {

COURSE_MANIFEST_KERNEL(names::A, reduce_shuffle);
COURSE_MANIFEST_KERNEL(names::B, reduce_vectorized);

namespace {

// The lab file's constants live in its own translation unit, so the compiler cannot
// check them here. "" when `value` is allowed, else what is wrong with it.
std::string constant_problem(const char* name, unsigned value, unsigned lo, unsigned hi, unsigned multiple_of) {
    if (value >= lo && value <= hi && value % multiple_of == 0) return "";
    return std::string(name) + " is " + std::to_string(value) + ": it must be " +
           (multiple_of > 1 ? "a multiple of " + std::to_string(multiple_of) + " " : "") + "from " +
           std::to_string(lo) + " to " + std::to_string(hi);
}

// A part whose launch configuration is not allowed fails every case with the reason,
// like a wrong kernel would: it is the lab file's mistake, not the grader's.
course::part make_part(const course::manifest::part_names& part_names, course::reduce_kernel kernel,
                       const char* block_name, unsigned block, const char* per_sm_name, unsigned per_sm,
                       unsigned elements_per_thread, unsigned sm_count) {
    std::string problem = constant_problem(block_name, block, 32, 1024, 32);
    if (problem.empty()) problem = constant_problem(per_sm_name, per_sm, 1, 64, 1);
    if (problem.empty())
        return course::make_reduction_part(part_names, kernel, {block, elements_per_thread, sm_count * per_sm});
    course::part p = course::make_reduction_part(part_names, kernel, {256, elements_per_thread, sm_count});
    p.launch = [problem](const course::launch_args&) { throw course::contract_error(problem); };
    return p;
}

}  // namespace

course::lab_parts parts() {
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const unsigned sm_count = static_cast<unsigned>(sms);
    return course::manifest::all_parts<names::part_count>(
        make_part(names::A, reduce_shuffle, "kShuffleBlockSize", kShuffleBlockSize, "kShuffleBlocksPerSm",
                  kShuffleBlocksPerSm, 1, sm_count),
        make_part(names::B, reduce_vectorized, "kVectorBlockSize", kVectorBlockSize, "kVectorBlocksPerSm",
                  kVectorBlocksPerSm, 4, sm_count));
}

}  // namespace LAB_IMPL
