#include <doctest/doctest.h>

#include "core/scoring.hpp"

using namespace course;

TEST_CASE("performance credit: full at the target, linear down to the floor") {
    CHECK(performance_credit(4.0, 4.0, 0.5) == 1.0);
    CHECK(performance_credit(5.0, 4.0, 0.5) == 1.0);
    CHECK(performance_credit(3.0, 4.0, 0.5) == doctest::Approx(0.5));  // floor 2.0, target 4.0
    CHECK(performance_credit(2.0, 4.0, 0.5) == 0.0);
    CHECK(performance_credit(1.0, 4.0, 0.5) == 0.0);
    CHECK(performance_credit(0.0, 4.0, 0.5) == 0.0);
}

TEST_CASE("a verdict needs the whole interval on one side of the target") {
    CHECK(decide({4.1, 4.5}, 4.0) == perf_verdict::meets_target);
    CHECK(decide({4.0, 4.5}, 4.0) == perf_verdict::meets_target);
    CHECK(decide({3.0, 3.9}, 4.0) == perf_verdict::below_target);
    CHECK(decide({3.9, 4.1}, 4.0) == perf_verdict::inconclusive);
    CHECK(to_string(perf_verdict::inconclusive) == "inconclusive");
}

TEST_CASE("part points: correctness all or nothing, performance needs correctness") {
    const part_points right_fast = score_part(50.0, 0.6, true, 1.0);
    CHECK(right_fast.correctness == doctest::Approx(30.0));
    CHECK(right_fast.performance == doctest::Approx(20.0));
    CHECK(right_fast.total() == doctest::Approx(50.0));
    const part_points right_slow = score_part(50.0, 0.6, true, 0.25);
    CHECK(right_slow.total() == doctest::Approx(35.0));
    const part_points wrong_fast = score_part(50.0, 0.6, false, 1.0);
    CHECK(wrong_fast.total() == 0.0);
}
