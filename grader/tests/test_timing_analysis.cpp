#include <doctest/doctest.h>

#include "core/timing_analysis.hpp"

using namespace course;

namespace {
timing_samples steady(double naive, double ref, double student, int rounds = 21) {
    timing_samples s;
    s.problem = "n=33554432";
    s.bytes = 134217728.0;
    s.kernel[0] = "reduce_divergent";
    s.kernel[1] = "reference";
    s.kernel[2] = "student";
    for (int r = 0; r < rounds; ++r) {
        // a little alternating noise so the interval is not a point
        const double wobble = (r % 2 == 0) ? 1.01 : 0.99;
        s.ms[0].push_back(naive * wobble);
        s.ms[1].push_back(ref * wobble);
        s.ms[2].push_back(student * wobble);
    }
    s.copy_gbps = 4228.0;
    s.peak_gbps = 4814.0;
    return s;
}
}  // namespace

TEST_CASE("speedup, target and verdict from paired rounds") {
    const timing_result t = analyze_timing(steady(0.334, 0.094, 0.100), {0.8, 0.5, 0.95, 1.02});
    CHECK(t.status == timing_status::measured);
    CHECK(t.rounds == 21);
    CHECK(t.speedup == doctest::Approx(3.34));
    CHECK(t.reference_speedup == doctest::Approx(0.334 / 0.094));
    CHECK(t.target == doctest::Approx(0.8 * 0.334 / 0.094));
    CHECK(t.verdict == perf_verdict::meets_target);  // 0.94 of the reference >= 0.8
    CHECK(t.credit == 1.0);
    // 11 of the 21 rounds carry the +1% wobble, so the median time is 1.01x the base
    CHECK(t.kernels[0].median_ms == doctest::Approx(0.33734));
    CHECK(t.kernels[0].gbps == doctest::Approx(397.871).epsilon(1e-5));
    CHECK(t.kernels[2].pct_of_copy == doctest::Approx(31.4307).epsilon(1e-5));
}

TEST_CASE("a slow kernel gets partial credit") {
    // student at 0.65 of the reference's speed: floor 0.4, target 0.8 -> credit 0.625
    const timing_result t = analyze_timing(steady(0.334, 0.100, 0.100 / 0.65), {0.8, 0.5, 0.95, 1.02});
    CHECK(t.verdict == perf_verdict::below_target);
    CHECK(t.credit == doctest::Approx(0.625));
}

TEST_CASE("bandwidth above the device's peak is implausible and earns nothing") {
    // 134 MB in 0.02 ms is 6.7 TB/s, above 1.02 * 4814 GB/s
    const timing_result t = analyze_timing(steady(0.334, 0.094, 0.020), {0.8, 0.5, 0.95, 1.02});
    CHECK(t.implausible);
    CHECK(t.credit == 0.0);
    CHECK(t.verdict == perf_verdict::below_target);
}

TEST_CASE("noise that straddles the target is inconclusive") {
    timing_samples s = steady(0.3, 0.1, 0.125);  // relative speed 0.8, exactly the target
    for (std::size_t r = 0; r < s.ms[2].size(); ++r) s.ms[2][r] *= (r % 3 == 0) ? 1.1 : 0.95;
    const timing_result t = analyze_timing(s, {0.8, 0.5, 0.95, 1.02});
    CHECK(t.verdict == perf_verdict::inconclusive);
}
