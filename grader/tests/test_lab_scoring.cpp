#include <doctest/doctest.h>

#include "core/lab_scoring.hpp"

using namespace course;

namespace {

part_result correct_part(const std::string& id) {
    part_result p;
    p.id = id;
    p.correctness.status = correctness_status::passed;
    p.timing.status = timing_status::measured;
    p.timing.verdict = perf_verdict::meets_target;
    p.timing.credit = 1.0;
    return p;
}

lab_result lab_of(const std::string& backend, std::vector<part_result> parts) {
    lab_result r;
    r.lab = "lab2";
    r.backend = backend;
    r.parts = std::move(parts);
    return r;
}

}  // namespace

TEST_CASE("the pass/fail rule of a part") {
    part_result p = correct_part("A");
    CHECK(correctness_passes(p));
    CHECK(performance_passes(p.timing));
    CHECK(part_passes(p, true));
    CHECK(part_passes(p, false));

    SUBCASE("wrong results fail on every backend") {
        p.correctness.status = correctness_status::failed;
        CHECK_FALSE(correctness_passes(p));
        CHECK_FALSE(part_passes(p, false));
        CHECK_FALSE(part_passes(p, true));
    }
    SUBCASE("below target fails only where kernels are timed") {
        p.timing.verdict = perf_verdict::below_target;
        CHECK_FALSE(performance_passes(p.timing));
        CHECK_FALSE(part_passes(p, true));
        CHECK(part_passes(p, false));
    }
    SUBCASE("an inconclusive verdict, a wrong run after timing or an implausible bandwidth is no pass") {
        p.timing.verdict = perf_verdict::inconclusive;
        CHECK_FALSE(performance_passes(p.timing));
        p.timing.verdict = perf_verdict::meets_target;
        p.timing.recheck = "the last timed run gave a wrong result";
        CHECK_FALSE(performance_passes(p.timing));
        p.timing.recheck.clear();
        p.timing.implausible = true;
        CHECK_FALSE(performance_passes(p.timing));
    }
    SUBCASE("a penalty fails the part; only 'everything' fails its correctness") {
        p.penalty = check_penalty::performance;
        CHECK(correctness_passes(p));
        CHECK_FALSE(part_passes(p, false));
        p.penalty = check_penalty::everything;
        CHECK_FALSE(correctness_passes(p));
    }
}

TEST_CASE("score_lab with the default policy: literal scores and exit codes") {
    const policy pol = load_policy("");
    SUBCASE("GPU, both parts at target: 100 of 100, exit 0") {
        lab_result r = lab_of("gpu", {correct_part("A"), correct_part("B")});
        score_lab(r, pol);
        CHECK(r.score == doctest::Approx(100.0));
        CHECK(r.max_score == doctest::Approx(100.0));
        CHECK(r.passed);
        CHECK(r.exit_code == 0);
    }
    SUBCASE("GPU, part B below target with half credit: 30 + 30 + 20 + 10") {
        part_result b = correct_part("B");
        b.timing.verdict = perf_verdict::below_target;
        b.timing.credit = 0.5;
        lab_result r = lab_of("gpu", {correct_part("A"), b});
        score_lab(r, pol);
        CHECK(r.parts[1].performance_points == doctest::Approx(10.0));
        CHECK(r.score == doctest::Approx(90.0));
        CHECK_FALSE(r.passed);
        CHECK(r.exit_code == 1);
    }
    SUBCASE("emulator: correctness only, 60 of 60") {
        lab_result r = lab_of("emulated", {correct_part("A"), correct_part("B")});
        score_lab(r, pol);
        CHECK(r.score == doctest::Approx(60.0));
        CHECK(r.max_score == doctest::Approx(60.0));
        CHECK(r.passed);
    }
    SUBCASE("a failed no_libraries check costs every part everything") {
        lab_result r = lab_of("emulated", {correct_part("A"), correct_part("B")});
        r.checks.push_back({"no_libraries", check_status::failed, "uses CUB"});
        score_lab(r, pol);
        CHECK(r.score == doctest::Approx(0.0));
        CHECK(r.parts[0].penalty == check_penalty::everything);
        CHECK(r.parts[0].penalty_reason == "check no_libraries failed: uses CUB");
        CHECK(r.exit_code == 1);
    }
    SUBCASE("an infrastructure error is exit 2") {
        lab_result r = lab_of("gpu", {});
        r.infrastructure_error = "no worker";
        score_lab(r, pol);
        CHECK(r.exit_code == 2);
        CHECK_FALSE(r.passed);
    }
}

TEST_CASE("the outcome of a submission, in the gradebook's words") {
    lab_result r = lab_of("emulated", {correct_part("A"), correct_part("B")});
    CHECK(outcome_of(r) == "graded");
    r.parts[1].correctness.status = correctness_status::failed;
    CHECK(outcome_of(r) == "graded");  // wrong is graded, not crashed
    r.parts[1].correctness.faults = 1;
    CHECK(outcome_of(r) == "crashed");
    r.parts[0].correctness.status = correctness_status::timed_out;
    CHECK(outcome_of(r) == "timeout");
    r.build.kind = "link_error";
    CHECK(outcome_of(r) == "compile_error");
    r.build.kind = "rejected";
    CHECK(outcome_of(r) == "rejected");
    r.infrastructure_error = "no worker";
    CHECK(outcome_of(r) == "crashed");
}
