#pragma once
// Checks that a lab used the technique it teaches, with the CUDA tools. A tool that is
// missing makes its check "skipped" with the reason, never "passed".
#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/policy.hpp"
#include "core/protocol.hpp"
#include "core/result.hpp"
#include "supervisor/gpu_turn.hpp"

namespace course {

// Finds a program on PATH, then in /usr/local/cuda/bin. "" when absent.
std::string find_tool(const std::string& name);

// The student's file must not use the libraries of `rules` (the policy's
// forbidden_libraries): its #includes and code, and the symbols of its compiled object
// (`nm -C`, which reads the GPU and the emulator builds alike). A source that cannot be
// read skips the check.
check_result check_no_libraries(const std::string& source, const std::string& object,
                                const std::vector<library_rule>& rules);

// GPU: the SASS of the graded kernel (its mangled name starts with `prefix`, see
// mangled_prefix) and of the functions it calls must contain SHFL; a shuffle in a kernel
// the course never launches does not count.
check_result check_uses_shuffle(const std::string& object, const std::string& prefix, const std::string& kernel);

// CPU emulator: the graded kernel must have executed warp shuffles in its correctness
// cases (the count the emulated worker reports with the part's verdict), and its result
// must change when every shuffle's value does (counters_event::shuffles_perturbed).
check_result check_emulated_shuffles(const std::string& kernel, const part_result& part);

// The races check: the correctness cases of several parts, in one run of compute-sanitizer
// racecheck (hazard reports), each hazard pinned on the part whose kernel it names. A
// part the run cannot settle (a hazard that names no kernel, or the print limit reached
// before the part ran) is run again on its own. Returns one result per part id.
struct race_target {
    std::string part;
    std::string kernel;            // as the reports name it: "lab3_student::reduce_warp_unrolled"
    std::string kernel_for_people;  // "reduce_warp_unrolled"
    std::string kind;               // its problem kind, whose cases it runs
};
struct race_options {
    correctness_request cases;  // the sizes, inputs, seed and tolerance (its parts are the targets')
    double timeout_seconds = 0;
    // Where graders share the GPU: each run's worker holds it (shared) only once it is
    // ready for its cases, not while compute-sanitizer starts. Null: no hand-off.
    gpu_turn* turn = nullptr;
    // Once true, a run in progress is killed and check_races returns no result at all.
    const std::atomic<bool>* stop = nullptr;
};
// The compute-sanitizer racecheck command line that runs `command` (a worker's).
std::vector<std::string> racecheck_argv(const std::string& tool, const std::vector<std::string>& command);
std::map<std::string, check_result> check_races(const std::string& worker, const std::vector<race_target>& targets,
                                                const race_options& options, bool gpu);

// Runs the part's correctness cases at `cases` (the kinds' sanitizer_sizes) under
// compute-sanitizer memcheck and racecheck (--sanitize). Race "warnings" count as findings.
check_result check_sanitize(const std::string& worker, const std::string& part_id, std::uint64_t seed,
                            double tolerance_c, const std::map<std::string, kind_cases>& cases, bool gpu);

// Shared-memory wavefronts per request of the part's kernels, from Nsight Compute's
// counters, for the student's version and the lab's baseline, relative to the minimum
// for the access width (1.0: conflict-free; 8: an 8-way conflict). `graded`: the
// student's loads must need at most `limit`; otherwise the numbers are reported as
// information (--profile).
// The profiled runs' input comes from `seed`, at `size` (the kind's "profiled").
check_result check_bank_wavefronts(const std::string& worker, const std::string& part_id, std::uint64_t seed,
                                   const problem_size& size, double limit, bool graded, bool gpu);

}  // namespace course
