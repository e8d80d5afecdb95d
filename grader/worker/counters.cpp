#include "worker/counters.hpp"

#include "course/cuda_check.hpp"
#include "emu/emu_stats.hpp"
#include "worker/executor.hpp"
#include "worker/problem.hpp"
#include "worker/transpose_case.hpp"

namespace course {

namespace {

const char* const version_names[3] = {"baseline", "reference", "student"};

// Everything the launches since the last reset did, summed over their kernel names (a
// part may launch more than one kernel, and every pass of a reduction counts).
version_counters summed(const std::string& version, const std::string& kernel) {
    version_counters v;
    v.version = version;
    v.kernel = kernel;
    for (const auto& [name, s] : executor_launch_stats()) {
        v.launches += s.launches;
        v.warp_shuffles += s.warp_shuffles;
        const emu::memory_counters& m = s.memory;
        v.barriers += m.barriers;
        v.shared_load_requests += m.shared_load_requests;
        v.shared_load_wavefronts += m.shared_load_wavefronts;
        v.shared_store_requests += m.shared_store_requests;
        v.shared_store_wavefronts += m.shared_store_wavefronts;
        v.global_load_requests += m.global_load_requests;
        v.global_load_sectors += m.global_load_sectors;
        v.global_store_requests += m.global_store_requests;
        v.global_store_sectors += m.global_store_sectors;
        v.request_lanes += m.request_lanes;
        v.partial_requests += m.partial_requests;
        v.hazard_count += s.hazard_count;
        for (const auto& h : s.hazards) (h.kind == "race" ? v.races : v.uninitialized).push_back(h.message);
    }
    return v;
}

// Tracing on for one scope, off again whatever happens.
struct tracing_on {
    tracing_on() { executor_set_tracing(true); }
    ~tracing_on() {
        try {
            executor_set_tracing(false);
        } catch (const std::exception&) {
            // An executor that is gone traces nothing.
        }
    }
    tracing_on(const tracing_on&) = delete;
    tracing_on& operator=(const tracing_on&) = delete;
};

}  // namespace

counters_event count_versions(const part* const versions[3], const counters_request& request, std::uint64_t seed,
                              double tolerance_c) {
    const part& student = *versions[2];
    problem_size size;
    size.n = request.n;
    size.records = request.records;
    if (!parse_shape(request.shape, size.rows, size.cols)) throw std::invalid_argument("bad shape " + request.shape);
    const auto prob = make_problem(student.kind, size, versions, tolerance_c,
                                   make_problem_inputs(student.kind, size, student.record_len, seed, std::nullopt));
    counters_event out{student.id, prob->label(), {}, ""};
    for (int k = 0; k < 3; ++k) {
        prob->prepare_run();
        executor_reset_launch_stats();
        {
            tracing_on tracing;
            prob->run(*versions[k]);
            CUDA_CHECK(cudaDeviceSynchronize());
        }
        out.versions.push_back(summed(version_names[k], versions[k]->kernel));
        if (k == 2) {
            const case_record rec = prob->check_last(*versions[k]);
            if (!rec.ok)
                out.error = "your kernel gave a wrong result in the traced run (" + prob->label() + "): " +
                            (rec.detail.empty() ? "expected " + std::to_string(rec.expected) + ", got " +
                                                      std::to_string(rec.got)
                                                : rec.detail);
        }
    }
    executor_reset_launch_stats();
    return out;
}

}  // namespace course
