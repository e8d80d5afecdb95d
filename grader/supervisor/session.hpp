#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/policy.hpp"
#include "core/protocol.hpp"
#include "supervisor/gpu_lock.hpp"
#include "supervisor/grade_lab.hpp"

namespace course {

// What the phases of one grading share: the options and policy, and what the worker
// told about itself.
struct session {
    session(const grade_options& o, const policy& p) : opt(o), pol(p) {}
    const grade_options& opt;
    const policy& pol;
    std::string worker;   // path of the worker binary in use
    std::string backend;  // "gpu" or "emulated"
    std::uint64_t seed = 0;
    std::vector<part_info> parts;
    std::string student_source, student_object;

    bool gpu() const { return backend == "gpu"; }
    const lab_policy& lab() const { return pol.lab(opt.lab); }
    // Seconds spent waiting for the shared GPU's lock, holding the GPU alone, and running
    // cases with it shared (lab_result::seconds); the phases add to them.
    struct gpu_seconds_t {
        double waited = 0, alone = 0, shared = 0;
        // The workers' start to their ready event (gpu_turn::seconds_to_ready), by phase,
        // and racecheck's share of `shared`.
        double correctness_ready = 0, timing_ready = 0, racecheck_ready = 0, racecheck_shared = 0;
    };
    mutable gpu_seconds_t gpu_seconds;
    // Lines the workers wrote (the kernels' printf) that no --show-output displayed.
    mutable std::size_t unshown_output_lines = 0;
    // Some worker's kernels printed past the backend's bound (course/printf_bound.hpp).
    mutable bool output_cut = false;
    // lab_result::reference_counters, as the correctness phase found the class's file.
    mutable std::string reference_counters;
    // The GPU this grading shares with other graders (--gpu-lock); locks nothing on the emulator.
    gpu_lock lock() const { return gpu_lock(gpu() ? opt.gpu_lock : "", &gpu_seconds.waited); }
    std::vector<std::string> part_ids() const;
    // One whole line at a time: the emulator's run speaks from a thread of its own.
    void say(const std::string& line) const;
};

// "A,B" from {"A", "B"}.
std::string join(const std::vector<std::string>& items, const char* sep = ",");

}  // namespace course
