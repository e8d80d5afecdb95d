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

std::string to_string(check_penalty p) {
    switch (p) {
    case check_penalty::none: return "none";
    case check_penalty::performance: return "performance";
    case check_penalty::everything: return "everything";
    }
    return "unknown";
}

check_penalty penalty_of(const std::string& failed_check, bool performance_awarded) {
    if (failed_check == "no_libraries" || failed_check == "races" || failed_check == "initcheck" ||
        failed_check == "traced_run") return check_penalty::everything;
    // Where no performance points are given (the CPU emulator), taking them would leave a
    // failed technique invisible in the score: the part's points go instead.
    return performance_awarded ? check_penalty::performance : check_penalty::everything;
}

check_penalty worse(check_penalty a, check_penalty b) { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }

part_points score_part(double part_max, double correctness_weight, bool correct, double perf_credit,
                       check_penalty penalty) {
    part_points p;
    if (!correct || penalty == check_penalty::everything) return p;
    p.correctness = part_max * correctness_weight;
    if (penalty == check_penalty::performance) return p;
    p.performance = part_max * (1.0 - correctness_weight) * std::clamp(perf_credit, 0.0, 1.0);
    return p;
}

}  // namespace course
