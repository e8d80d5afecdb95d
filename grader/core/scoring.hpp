#pragma once
#include <string>

#include "core/stats.hpp"

namespace course {

// Performance credit in [0, 1]: full at or above the target speedup, falling off
// linearly to 0 at floor_fraction * target.
double performance_credit(double speedup, double target, double floor_fraction);

enum class perf_verdict { meets_target, below_target, inconclusive };

// Decides from the confidence interval of the speedup, never from one noisy number:
// the whole interval must sit on one side of the target.
perf_verdict decide(const interval& speedup_ci, double target);

std::string to_string(perf_verdict v);

// Points for one part: correctness is all or nothing (a kernel that is wrong for some
// n is wrong); performance points need a correct kernel.
struct part_points {
    double correctness = 0;
    double performance = 0;
    double total() const { return correctness + performance; }
};
part_points score_part(double part_max, double correctness_weight, bool correct, double perf_credit);

}  // namespace course
