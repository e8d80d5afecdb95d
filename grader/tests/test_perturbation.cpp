#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "inputs/inputs.hpp"
#include "inputs/perturbation.hpp"
#include "inputs/tolerance.hpp"

using namespace course;

TEST_CASE("sum_components sums each component in double, with sum|x|") {
    const std::vector<float> records = {1, -2, 3, 4, -5, 6};  // 3 records of 2 floats
    const component_sums s = sum_components(records.data(), 3, 2);
    CHECK(s.sum == std::vector<double>{-1.0, 8.0});
    CHECK(s.sum_abs == std::vector<double>{9.0, 12.0});
    const std::vector<float> plain = {0.5f, -0.25f};
    const component_sums p = sum_components(plain.data(), 2, 1);
    CHECK(p.sum[0] == 0.25);
    CHECK(p.sum_abs[0] == 0.75);
}

TEST_CASE("the shift unit is the tolerance, but at least the mean |x|") {
    // 2^25 values in [0, 1): tolerance 3 * 25 * 2^-24 * 2^24 = 75, far above the mean 0.5
    CHECK(shift_unit(33554432, 16777216.0, 3.0) == doctest::Approx(75.0));
    // one value: no additions, tolerance 0, so the mean |x| keeps the shift visible
    CHECK(shift_unit(1, 0.5, 3.0) == 0.5);
    // 2^16 values: tolerance 3 * 16 * 2^-24 * 2^15 = 0.09375 < mean 0.5
    CHECK(shift_unit(65536, 32768.0, 3.0) == 0.5);
    CHECK(shift_unit(4, 0.0, 3.0) == 1.0);
}

TEST_CASE("pick_distinct draws distinct values, reproducibly") {
    const auto all = pick_distinct(5, 8, 11);
    CHECK(std::set<std::size_t>(all.begin(), all.end()) == std::set<std::size_t>{0, 1, 2, 3, 4});
    const auto some = pick_distinct(1000000, 8, 7);
    CHECK(some.size() == 8);
    CHECK(std::set<std::size_t>(some.begin(), some.end()).size() == 8);
    CHECK(*std::max_element(some.begin(), some.end()) < 1000000);
    CHECK(pick_distinct(1000000, 8, 7) == some);
    CHECK(pick_distinct(1000000, 8, 8) != some);
    CHECK(pick_distinct(0, 3, 1).empty());
}

TEST_CASE("perturb_sums rewrites K elements upwards and keeps the sums exact") {
    host_floats x = make_input(input_kind::random, 1, 4096);
    const host_floats before = x;
    component_sums sums = sum_components(x.data(), 4096, 1);
    const double unit = shift_unit(4096, sums.sum_abs[0], 3.0);
    CHECK(unit == doctest::Approx(0.5).epsilon(0.05));  // the mean of [0, 1)

    const auto changes = perturb_sums(x, 4096, 1, sums, 3.0, 42);
    CHECK(changes.size() == 8);
    std::set<std::size_t> where;
    for (const auto& c : changes) {
        where.insert(c.index);
        CHECK(x[c.index] == c.value);
        const double shift = static_cast<double>(c.value) - before[c.index];
        CHECK(shift >= 4.0 * unit);
        CHECK(shift < 8.01 * unit);
    }
    CHECK(where.size() == 8);
    std::size_t untouched = 0;
    for (std::size_t i = 0; i < x.size(); ++i) untouched += x[i] == before[i];
    CHECK(untouched == 4096 - 8);

    const component_sums fresh = sum_components(x.data(), 4096, 1);
    CHECK(sums.sum[0] == doctest::Approx(fresh.sum[0]).epsilon(1e-12));
    CHECK(sums.sum_abs[0] == doctest::Approx(fresh.sum_abs[0]).epsilon(1e-12));
    CHECK(perturb_sums(x, 4096, 1, sums, 3.0, 42).size() == 8);  // x changed: the same seed still works
}

TEST_CASE("perturb_sums on a single element changes that element") {
    host_floats x = {0.25f};
    component_sums sums = sum_components(x.data(), 1, 1);
    const auto changes = perturb_sums(x, 1, 1, sums, 3.0, 5);
    REQUIRE(changes.size() == 1);
    CHECK(changes[0].index == 0);
    // shift unit 0.25 (the mean), shifted by 4 to 8 units
    CHECK(x[0] >= 1.25f);
    CHECK(x[0] < 2.25f);
    CHECK(sums.sum[0] == static_cast<double>(x[0]));
}

TEST_CASE("over 192 runs at n = 2^22 every result of an earlier run fails, and the sum stays tame") {
    // The timed case: n large, so the shift unit is the tolerance itself.
    const std::size_t n = std::size_t{1} << 22;
    host_floats x = make_input(input_kind::random, 3, n);
    component_sums sums = sum_components(x.data(), n, 1);
    const double first = sums.sum[0];
    CHECK(shift_unit(n, sums.sum_abs[0], 3.0) == doctest::Approx(8.25).epsilon(0.01));  // 3 * 22 * 2^-24 * 2^21
    double smallest_gap = 1e300;  // in tolerances of the current run
    double previous = first;      // sums only rise, so the previous run's is the closest earlier one
    for (std::uint64_t run = 0; run < 192; ++run) {
        perturb_sums(x, n, 1, sums, 3.0, run_seed(9, run));
        const double tol = tree_sum_tolerance(n, sums.sum_abs[0], 3.0);
        smallest_gap = std::min(smallest_gap, (sums.sum[0] - previous) / tol);
        previous = sums.sum[0];
    }
    // K = 8 elements of at least 4 units each: 32 tolerances, less the tolerance's own growth
    CHECK(smallest_gap > 31.9);
    CHECK(sums.sum[0] / first < 1.06);
    CHECK(sums.sum[0] == sums.sum_abs[0]);  // all values non-negative: perfectly conditioned
    const component_sums fresh = sum_components(x.data(), n, 1);
    CHECK(sums.sum[0] == doctest::Approx(fresh.sum[0]).epsilon(1e-12));
    CHECK(std::all_of(x.begin(), x.end(), [](float v) { return std::isfinite(v) && v < 1e4f; }));
}

TEST_CASE("records: every change moves its own component by more than its tolerance") {
    const std::size_t n = 1000;
    const unsigned width = 8;
    host_floats x = make_input(input_kind::random, 4, n * width);
    component_sums sums = sum_components(x.data(), n, width);
    std::set<unsigned> moved_components;
    for (std::uint64_t run = 0; run < 50; ++run) {
        const component_sums before = sums;
        const auto changes = perturb_sums(x, n, width, sums, 3.0, run_seed(2, run));
        CHECK(changes.size() == 8);
        double most = 0;  // the component that moved most, in its own tolerances
        for (unsigned c = 0; c < width; ++c) {
            CHECK(sums.sum[c] >= before.sum[c]);  // no component ever goes back
            most = std::max(most, (sums.sum[c] - before.sum[c]) / tree_sum_tolerance(n, sums.sum_abs[c], 3.0));
        }
        CHECK(most > 1000.0);  // unit = mean 0.5, tolerance 3 * 10 * 2^-24 * 500 = 9e-4
        for (const auto& ch : changes) moved_components.insert(static_cast<unsigned>(ch.index % width));
    }
    CHECK(moved_components.size() == 8);
    const component_sums fresh = sum_components(x.data(), n, width);
    for (unsigned c = 0; c < width; ++c) CHECK(sums.sum[c] == doctest::Approx(fresh.sum[c]).epsilon(1e-12));
}

TEST_CASE("perturb_elements changes K matrix elements by 1 to 2") {
    host_floats x = make_input(input_kind::random, 6, 33 * 31);
    const host_floats before = x;
    const auto changes = perturb_elements(x, 17);
    CHECK(changes.size() == 8);
    for (const auto& c : changes) {
        CHECK(x[c.index] == c.value);
        CHECK(c.value >= before[c.index] + 1.0f);
        CHECK(c.value <= before[c.index] + 2.0f);
    }
    std::size_t untouched = 0;
    for (std::size_t i = 0; i < x.size(); ++i) untouched += x[i] == before[i];
    CHECK(untouched == 33 * 31 - 8);
}

TEST_CASE("run seeds differ per run and repeat per seed") {
    CHECK(run_seed(1, 0) != run_seed(1, 1));
    CHECK(run_seed(1, 0) != run_seed(2, 0));
    CHECK(run_seed(1, 5) == run_seed(1, 5));
}

TEST_CASE("the messages say what the grader does and what the kernel must do") {
    CHECK(wrong_run_message("timed run 7 of 21", "expected 5, got 4") ==
          "timed run 7 of 21 gave a wrong result (expected 5, got 4): the grader changes a few input elements and "
          "poisons the outputs before every run, so a kernel must compute every call from its input");
    CHECK(changed_case_advice() ==
          "; the same buffers gave the right result before a few input elements were changed: compute every call "
          "from the input, do not reuse a result from an earlier call");
}

TEST_CASE("perturb_sums of an input it may not write: the same changes, kept by the caller") {
    const host_floats cached = make_input(input_kind::random, 11, 4096);
    host_floats copy = cached;
    component_sums in_place = sum_components(copy.data(), 4096, 1);
    component_sums kept = in_place;
    std::vector<element_change> changes_so_far;
    const auto value_of = [&](std::size_t i) {
        for (auto it = changes_so_far.rbegin(); it != changes_so_far.rend(); ++it)
            if (it->index == i) return it->value;
        return cached[i];
    };
    for (std::uint64_t run = 0; run < 3; ++run) {
        const auto a = perturb_sums(copy, 4096, 1, in_place, 3.0, run_seed(5, run));
        const auto b = perturb_sums(value_of, cached.size(), 4096, 1, kept, 3.0, run_seed(5, run));
        REQUIRE(a.size() == 8);
        REQUIRE(b.size() == 8);
        for (std::size_t k = 0; k < a.size(); ++k) {
            CHECK(a[k].index == b[k].index);
            CHECK(a[k].value == b[k].value);
        }
        changes_so_far.insert(changes_so_far.end(), b.begin(), b.end());
        CHECK(kept.sum[0] == in_place.sum[0]);
        CHECK(kept.sum_abs[0] == in_place.sum_abs[0]);
    }
    CHECK(cached == make_input(input_kind::random, 11, 4096));  // never written
}
