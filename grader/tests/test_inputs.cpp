#include <doctest/doctest.h>

#include <cmath>

#include "core/inputs.hpp"

using namespace course;

TEST_CASE("inputs are reproducible from their seed and differ between seeds") {
    const auto a = make_input(input_kind::random, 42, 1000);
    const auto b = make_input(input_kind::random, 42, 1000);
    const auto c = make_input(input_kind::random, 43, 1000);
    CHECK(a == b);
    CHECK(a != c);
}

TEST_CASE("each input kind has its documented values, and none is all zeros") {
    const auto r = make_input(input_kind::random, 7, 4096);
    for (float x : r) CHECK((x >= 0.0f && x < 1.0f));
    const auto ones = make_input(input_kind::ones, 7, 100);
    CHECK(reference_sum(ones.data(), ones.size()).sum == 100.0);
    const auto ints = make_input(input_kind::integers, 7, 4096);
    bool any_nonzero = false;
    for (float x : ints) {
        CHECK(x == std::floor(x));
        CHECK((x >= -8.0f && x <= 8.0f));
        any_nonzero = any_nonzero || x != 0.0f;
    }
    CHECK(any_nonzero);
    const auto idx = make_input(input_kind::index, 7, 5);
    CHECK(idx[4] == 4.0f);
}

TEST_CASE("cancellation input: large values whose sum is small") {
    const auto x = make_input(input_kind::cancellation, 9, 10000);
    const exact_sum s = reference_sum(x.data(), x.size());
    CHECK(s.sum_abs > 1e6);                  // |a| up to 1000
    CHECK(std::fabs(s.sum) < 0.07 * 10000);  // only the noise survives
}

TEST_CASE("reference sum in double") {
    const std::vector<float> x = {1.0f, -2.0f, 3.5f};
    const exact_sum s = reference_sum(x.data(), x.size());
    CHECK(s.sum == 2.5);
    CHECK(s.sum_abs == 6.5);
    CHECK(parse_input_kind("ones") == input_kind::ones);
    CHECK_FALSE(parse_input_kind("zeros").has_value());
    CHECK(case_seed(1, input_kind::random, 257) != case_seed(1, input_kind::random, 256));
}
