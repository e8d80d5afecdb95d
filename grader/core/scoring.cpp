#include "core/scoring.hpp"

#include <algorithm>

namespace course {

double performance_credit(double speedup, double target, double floor_fraction) {
    if (!(speedup > 0) || !(target > 0)) return 0.0;
    if (speedup >= target) return 1.0;
    const double floor = floor_fraction * target;
    if (speedup <= floor) return 0.0;
    return (speedup - floor) / (target - floor);
}

perf_verdict decide(const interval& speedup_ci, double target) {
    if (speedup_ci.lo >= target) return perf_verdict::meets_target;
    if (speedup_ci.hi < target) return perf_verdict::below_target;
    return perf_verdict::inconclusive;
}

std::string to_string(perf_verdict v) {
    switch (v) {
    case perf_verdict::meets_target: return "meets_target";
    case perf_verdict::below_target: return "below_target";
    case perf_verdict::inconclusive: return "inconclusive";
    }
    return "unknown";
}

part_points score_part(double part_max, double correctness_weight, bool correct, double perf_credit) {
    part_points p;
    if (!correct) return p;
    p.correctness = part_max * correctness_weight;
    p.performance = part_max * (1.0 - correctness_weight) * std::clamp(perf_credit, 0.0, 1.0);
    return p;
}

}  // namespace course
