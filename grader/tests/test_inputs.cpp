#include <doctest/doctest.h>

#include <cmath>

#include "inputs/input_cache.hpp"
#include "inputs/inputs.hpp"

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

TEST_CASE("input_cache makes each input once and gives every caller the same one") {
    input_cache cache;
    const host_floats& a = cache.values(input_kind::integers, 7, 4096);
    CHECK(a == make_input(input_kind::integers, 7, 4096));
    CHECK(&cache.values(input_kind::integers, 7, 4096) == &a);  // made once: the same storage
    CHECK(&cache.values(input_kind::integers, 8, 4096) != &a);  // another seed, another input
    CHECK(&cache.values(input_kind::ones, 7, 4096) != &a);      // another kind
    CHECK(cache.values(input_kind::integers, 7, 1000).size() == 1000);

    // The sums of the same 4096 floats, as 4096 plain values and as 512 records of 8.
    const component_sums& plain = cache.sums(input_kind::integers, 7, 4096, 1);
    CHECK(plain.sum[0] == reference_sum(a.data(), a.size()).sum);
    const component_sums& records = cache.sums(input_kind::integers, 7, 512, 8);
    REQUIRE(records.sum.size() == 8);
    double total = 0;
    for (double s : records.sum) total += s;
    CHECK(total == plain.sum[0]);  // integers: exact in double either way
    CHECK(&cache.values(input_kind::integers, 7, 4096) == &a);  // the records are the same input
}

TEST_CASE("the inputs of a seed never change between versions of the grader") {
    // A report's seed must reproduce its cases (--seed), and a faster grader must judge
    // the same inputs: these values were printed by the grader that first made them.
    CHECK(case_seed(1, input_kind::random, 33) == 16061693474581819898ull);
    CHECK(case_seed(7, input_kind::integers, std::uint64_t{31} << 32 | 33) == 11176385477855954531ull);
    const host_floats random = make_input(input_kind::random, 42, 4);
    CHECK(random == host_floats{0.343291879f, 0.977776766f, 0.446587861f, 0.414437652f});
    const host_floats integers = make_input(input_kind::integers, 42, 6);
    CHECK(integers == host_floats{6, -2, -2, -2, -8, 5});
    const host_floats cancellation = make_input(input_kind::cancellation, 42, 4);
    CHECK(cancellation == host_floats{-313.394775f, 313.477325f, -106.796371f, 106.850182f});
    // A large one, made on every core. Its sum's last bits depend on how many cores add it
    // up (chunks summed pairwise, then in order): equal to 1e-12.
    const host_floats big = make_input(input_kind::random, case_seed(1, input_kind::random, 1u << 20), 1u << 20);
    CHECK(big[1000] == make_input(input_kind::random, case_seed(1, input_kind::random, 1u << 20), 1001)[1000]);
    const exact_sum s = reference_sum(big.data(), big.size());
    CHECK(s.sum == doctest::Approx(524235.7225894928).epsilon(1e-12));
    CHECK(s.sum_abs == s.sum);
}
