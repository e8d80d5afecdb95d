#pragma once
#include "core/policy.hpp"
#include "core/result.hpp"

namespace course {

// The one pass/fail rule, used by the scores, the exit code and every report.
// Correctness: the cases passed and no failed check took all the part's points.
bool correctness_passes(const part_result& part);
// Performance: measured, its speedup interval at or above the target, nothing in doubt
// (no wrong run after timing, no bandwidth above what the device can move).
bool performance_passes(const timing_result& timing);
// A part passes when it is correct, no check cost it anything, and, where the backend
// times kernels (`timed`: the GPU), its performance passes.
bool part_passes(const part_result& part, bool timed);

// What happened to a submission as a whole, in the gradebook's words: "graded" (whatever
// the score), "timeout" (a kernel hung), "crashed" (a kernel faulted or was stopped with a
// diagnosis, or grading itself failed), "compile_error" (or a link error), "rejected" (the
// guard refused the file).
std::string outcome_of(const lab_result& r);

// Fills scores, verdict, exit code, summary and outcome of `r` from its parts' results.
void score_lab(lab_result& r, const policy& pol);

}  // namespace course
