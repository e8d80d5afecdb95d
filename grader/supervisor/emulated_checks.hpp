#pragma once
// The CPU emulator's technique checks: what the counters of a traced run of the student's
// kernel show, beside the lab's reference and naive baseline (grader/worker/counters.hpp).
#include <vector>

#include "core/policy.hpp"
#include "core/result.hpp"

namespace course {

// traced_run: a part whose cases passed must also give a right result in its traced run
// and have counters; otherwise the counters could not be trusted and the part fails.
// Empty when the part has counters from a right run, or its cases failed anyway.
std::vector<check_result> traced_run_check(const part_result& part);

// races and initcheck from the hazards the emulator found in the student's version
// (either fails: a race or a read of unwritten shared memory is a bug whatever the sum).
std::vector<check_result> hazard_checks(const part_result& part, const std::string& kernel);

// One named check (no_divergence, no_shared_tree, bank_wavefronts, wide_loads) of the part's counters.
// Skipped, with the reason, when the part has no counters (its kernel was not correct).
check_result counters_check(const std::string& name, const part_result& part, const policy& pol);

}  // namespace course
