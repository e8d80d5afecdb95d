#pragma once
#include <future>
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "supervisor/session.hpp"

namespace course {

// The phases of grading a lab, in order; each fills the parts' results by id.

// Every part's correctness cases, on the session's backend, with the hint of a failure.
void correctness_phase(const session& s, std::map<std::string, part_result>& results);

// GPU: the correct parts timed against the naive baseline and the reference, measured
// again when the verdict is too close to call; writes --benchmark-out.
void timing_phase(const session& s, std::map<std::string, part_result>& results);

// GPU: the same parts' correctness cases on the CPU emulator, for its counters and
// hazards, which the technique checks read on both backends (emulator_verdict says how the
// emulator's cases went). It needs no GPU, so it runs on a thread of its own beside the
// GPU's correctness cases: start_... starts it (no future when the build has no emulated
// worker) and take_... moves what it found into the parts' results.
struct emulated_run {
    std::map<std::string, part_result> parts;
    double seconds = 0;  // its own wall time, beside the GPU's cases
    std::string reference_counters;  // lab_result::reference_counters of its run
};
std::future<emulated_run> start_emulated_technique_run(const session& s);
void take_emulated_technique_run(const session& s, emulated_run run, std::map<std::string, part_result>& results);

// GPU: compute-sanitizer racecheck of the correct parts the lab's race_check_parts name,
// in one run, as soon as correctness is known: it holds the GPU shared, so it can go while
// the emulator's run is still busy on the CPU. Its checks, by part id (none off a GPU).
using race_results = std::map<std::string, std::vector<check_result>>;
race_results race_phase(const session& s, const std::map<std::string, part_result>& results);

// The policy's technique checks of the lab (into `r`) and of each part; `races` (from
// race_phase) last in each part's list.
void checks_phase(const session& s, lab_result& r, std::map<std::string, part_result>& results,
                  race_results races = {});

}  // namespace course
