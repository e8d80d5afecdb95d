#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/policy.hpp"
#include "core/result.hpp"

namespace course {

struct grade_options {
    std::string lab;
    std::string worker_dir;  // holds <lab>_worker_gpu and <lab>_worker_emulated
    bool force_emulate = false;
    // The graded lab file and the object compiled from it (the technique checks read both).
    // "" = what the build recorded beside the worker: <worker>.json (cmake/course_labs.cmake).
    // Batch grading links a worker per submission and names them here.
    std::string student_source, student_object;
    // --gpu-lock: the file several graders of one GPU share (supervisor/gpu_lock.hpp); "" = none.
    std::string gpu_lock;
    std::optional<std::uint64_t> seed;
    std::string benchmark_out;
    bool sanitize = false;  // run compute-sanitizer memcheck and racecheck (GPU only)
    bool profile = false;   // report shared-memory wavefronts from ncu for every lab (GPU only)
    std::function<void(const std::string&)> progress;  // one line of status, or empty
    // --show-output: what each part's kernels printed in its correctness run (printf), the
    // first lines of it, with a count of the rest; one call per part. Empty: kept hidden.
    std::function<void(const std::string& part, const std::string& output)> kernel_output;
    // The course folder: reports show the graded file relative to it, and say so when it is
    // not the student's labs/ file. ./grade passes it; "" shows the path as the build has it.
    std::string course_root;
    // --reference-counters: a class's counters of the references (reference_counters.hpp),
    // read instead of counting them in this grade when they cover its draw; "" = none.
    std::string reference_counters;
    // --described: the lab as the class's template worker described it (grader
    // --describe-lab), used instead of asking this submission's worker; "" = ask it.
    std::string described;
    // --reference-counters-sha256, --described-sha256: the bytes the batch wrote to each
    // file; "" = not pinned. A batch's results folder may lie where a student's kernels
    // can write (a relaxed sandbox keeps /tmp writable for compute-sanitizer and Nsight
    // Compute), so a file whose bytes differ is not read.
    std::string reference_counters_sha256, described_sha256;
};

// Grades one lab: environment check, correctness, performance (GPU only), scoring.
// Never throws for anything a student's code does; an infrastructure problem is
// returned in lab_result::infrastructure_error with exit code 2.
lab_result grade_lab(const grade_options& options, const policy& pol);

// The result of a lab whose student file did not build (./grade found it so): nothing is
// graded, the score is 0 of the lab's points and the exit code 1. `source` is the file.
lab_result failed_build_result(const grade_options& options, const policy& pol, const build_failure& failure,
                               const std::string& source);

}  // namespace course
