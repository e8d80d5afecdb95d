#pragma once
#include <map>
#include <string>

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
// emulator's cases went). Nothing when the build has no emulated worker.
void emulated_technique_phase(const session& s, std::map<std::string, part_result>& results);

// The policy's technique checks of the lab (into `r`) and of each part.
void checks_phase(const session& s, lab_result& r, std::map<std::string, part_result>& results);

}  // namespace course
