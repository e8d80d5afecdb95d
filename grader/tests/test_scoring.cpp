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

TEST_CASE("what a failed check costs: the one rule, by check name") {
    CHECK(penalty_of("no_libraries") == check_penalty::everything);
    CHECK(penalty_of("races") == check_penalty::everything);
    CHECK(penalty_of("uses_shuffle") == check_penalty::performance);
    CHECK(penalty_of("bank_wavefronts") == check_penalty::performance);
    CHECK(penalty_of("sanitize") == check_penalty::performance);
    // Without performance points (the emulator), a technique check costs the part.
    CHECK(penalty_of("uses_shuffle", false) == check_penalty::everything);
    CHECK(penalty_of("no_libraries", false) == check_penalty::everything);
    CHECK(penalty_of("uses_shuffle", true) == check_penalty::performance);
    CHECK(worse(check_penalty::performance, check_penalty::everything) == check_penalty::everything);
    CHECK(worse(check_penalty::none, check_penalty::performance) == check_penalty::performance);
    CHECK(to_string(check_penalty::everything) == "everything");
}

TEST_CASE("a library reduction or a race costs all the points; an untaught trick the performance points") {
    // A lab of 100 points in two parts, 60% for correctness: 50 points a part.
    const part_points library = score_part(50.0, 0.6, true, 1.0, check_penalty::everything);
    CHECK(library.correctness == 0.0);
    CHECK(library.performance == 0.0);
    const part_points no_shuffle = score_part(50.0, 0.6, true, 1.0, check_penalty::performance);
    CHECK(no_shuffle.correctness == doctest::Approx(30.0));
    CHECK(no_shuffle.performance == 0.0);
    const part_points clean = score_part(50.0, 0.6, true, 0.5, check_penalty::none);
    CHECK(clean.total() == doctest::Approx(40.0));
    // A wrong kernel has nothing to lose.
    CHECK(score_part(50.0, 0.6, false, 1.0, check_penalty::performance).total() == 0.0);
}
