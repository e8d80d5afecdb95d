#include "core/timing_analysis.hpp"

#include <stdexcept>

#include "core/stats.hpp"

namespace course {

namespace {

std::vector<double> ratios(const std::vector<double>& num, const std::vector<double>& den) {
    std::vector<double> out;
    for (std::size_t i = 0; i < num.size() && i < den.size(); ++i)
        if (den[i] > 0) out.push_back(num[i] / den[i]);
    return out;
}

}  // namespace

timing_result analyze_timing(const timing_samples& s, const timing_rule& rule) {
    timing_result t;
    for (const auto& m : s.ms)
        if (m.empty()) throw std::invalid_argument("timing without samples");
    t.status = timing_status::measured;
    t.problem = s.problem;
    t.rounds = static_cast<int>(s.ms[2].size());
    t.copy_gbps = s.copy_gbps;
    t.peak_gbps = s.peak_gbps;

    static const char* const roles[3] = {"naive", "reference", "student"};
    for (int k = 0; k < 3; ++k) {
        kernel_time kt;
        kt.role = roles[k];
        kt.kernel = s.kernel[k];
        kt.median_ms = median(s.ms[k]);
        kt.gbps = s.bytes / (kt.median_ms * 1e-3) / 1e9;
        kt.pct_of_copy = s.copy_gbps > 0 ? 100.0 * kt.gbps / s.copy_gbps : 0.0;
        t.kernels.push_back(kt);
    }

    const auto speedups = ratios(s.ms[0], s.ms[2]);
    const auto ref_speedups = ratios(s.ms[0], s.ms[1]);
    const auto relative = ratios(s.ms[1], s.ms[2]);  // student speed as a fraction of the reference's
    t.speedup = median(speedups);
    const interval ci = median_confidence_interval(speedups, rule.confidence);
    t.speedup_lo = ci.lo;
    t.speedup_hi = ci.hi;
    t.reference_speedup = median(ref_speedups);
    t.reference_cv = coefficient_of_variation(ref_speedups);
    t.target = rule.threshold_fraction * t.reference_speedup;

    const double rel = median(relative);
    t.verdict = decide(median_confidence_interval(relative, rule.confidence), rule.threshold_fraction);
    t.credit = performance_credit(rel, rule.threshold_fraction, rule.floor_fraction);

    const double student_gbps = t.kernels[2].gbps;
    const double limit = s.peak_gbps > 0 ? rule.implausible_fraction * s.peak_gbps : 1.25 * s.copy_gbps;
    if (limit > 0 && student_gbps > limit) {
        t.implausible = true;
        t.credit = 0;
        t.verdict = perf_verdict::below_target;
    }
    return t;
}

}  // namespace course
