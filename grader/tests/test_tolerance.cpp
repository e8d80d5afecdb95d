#include <doctest/doctest.h>

#include <cmath>

#include "inputs/tolerance.hpp"

using namespace course;

TEST_CASE("tree depth is ceil(log2 n)") {
    CHECK(tree_depth(1) == 0);
    CHECK(tree_depth(2) == 1);
    CHECK(tree_depth(3) == 2);
    CHECK(tree_depth(256) == 8);
    CHECK(tree_depth(257) == 9);
    CHECK(tree_depth(33554432) == 25);
    CHECK(tree_depth(16777223) == 25);
}

TEST_CASE("tree-sum tolerance is c * ceil(log2 n) * 2^-24 * sum|x|") {
    // 3 * 25 * 2^-24 * 2^24 = 75
    CHECK(tree_sum_tolerance(33554432, 16777216.0, 3.0) == doctest::Approx(75.0));
    // one element: no additions, no rounding
    CHECK(tree_sum_tolerance(1, 1000.0, 3.0) == 0.0);
    CHECK(tree_sum_tolerance(1024, 1024.0, 2.0) == doctest::Approx(20.0 / 16777216.0 * 1024.0));
}

TEST_CASE("integer inputs are exact while sum|x| <= 2^24") {
    CHECK(sum_is_exact_in_float(true, 16777216.0));
    CHECK_FALSE(sum_is_exact_in_float(true, 16777217.0));
    CHECK_FALSE(sum_is_exact_in_float(false, 10.0));
}

TEST_CASE("within_tolerance rejects NaN and infinities") {
    CHECK(within_tolerance(100.0, 100.5, 0.5));
    CHECK_FALSE(within_tolerance(100.0, 100.51, 0.5));
    CHECK_FALSE(within_tolerance(100.0, std::nan(""), 1e30));
    CHECK_FALSE(within_tolerance(100.0, INFINITY, 1e30));
    CHECK(within_tolerance(-3.0, -3.0, 0.0));
}
