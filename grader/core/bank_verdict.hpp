#pragma once
// The bank_wavefronts check's verdict from Nsight Compute's figures. Running ncu is the
// supervisor's job (technique_checks.cpp); judging its numbers is here, so that it can be
// unit-tested.
#include <optional>

#include "core/result.hpp"

namespace course {

// Shared-memory wavefronts per request of one version of a part's kernels, relative to the
// minimum for the access width (shared_conflict_factor): 1.0 is conflict-free, 0 means the
// kernels made no shared-memory requests of that kind at all.
struct shared_traffic {
    double load = 0;
    double store = 0;
};

// `graded`: the student's loads must need at most `limit` wavefronts per request, and there
// must be shared loads to measure: a lab about padding a shared array is not passed by a
// kernel that never reads one. Not graded (--profile): the same words, status info.
check_result bank_wavefronts_verdict(const shared_traffic& yours, const std::optional<shared_traffic>& baseline,
                                     double limit, bool graded);

}  // namespace course
