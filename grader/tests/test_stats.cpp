#include <doctest/doctest.h>

#include "core/stats.hpp"

using namespace course;

TEST_CASE("median of odd and even counts") {
    CHECK(median({3.0, 1.0, 2.0}) == 2.0);
    CHECK(median({4.0, 1.0, 3.0, 2.0}) == 2.5);
    CHECK(median({7.0}) == 7.0);
    CHECK_THROWS(median({}));
}

TEST_CASE("coefficient of variation") {
    CHECK(coefficient_of_variation({2.0, 2.0, 2.0}) == 0.0);
    // mean 2, sample sd 1
    CHECK(coefficient_of_variation({1.0, 2.0, 3.0}) == doctest::Approx(0.5));
}

TEST_CASE("order-statistic rank for the median's confidence interval") {
    // P(Bin(21, 1/2) <= 5) = 0.0133 <= 0.025 < P(<= 6) = 0.0392, so k = 6.
    CHECK(median_ci_rank(21, 0.95) == 6);
    // n = 6: P(<= 0) = 1/64 = 0.0156 <= 0.025, P(<= 1) = 7/64 > 0.025: k = 1 (full range).
    CHECK(median_ci_rank(6, 0.95) == 1);
    CHECK(median_ci_rank(5, 0.95) == 0);
    CHECK(median_ci_rank(63, 0.95) == 24);
}

TEST_CASE("median confidence interval picks the k-th smallest and largest") {
    std::vector<double> x;
    for (int i = 1; i <= 21; ++i) x.push_back(i);
    const interval ci = median_confidence_interval(x, 0.95);
    CHECK(ci.lo == 6.0);
    CHECK(ci.hi == 16.0);
    const interval tiny = median_confidence_interval({5.0, 1.0, 3.0}, 0.95);
    CHECK(tiny.lo == 1.0);
    CHECK(tiny.hi == 5.0);
}
