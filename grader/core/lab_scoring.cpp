#include "core/lab_scoring.hpp"

#include "core/grading_plan.hpp"
#include "core/report.hpp"

namespace course {

bool correctness_passes(const part_result& part) {
    return part.correctness.status == correctness_status::passed && part.penalty != check_penalty::everything;
}

bool performance_passes(const timing_result& t) {
    return t.status == timing_status::measured && t.verdict == perf_verdict::meets_target && t.recheck.empty() &&
           !t.implausible;
}

bool part_passes(const part_result& part, bool timed) {
    return correctness_passes(part) && part.penalty == check_penalty::none &&
           (!timed || performance_passes(part.timing));
}

namespace {

// What the failed checks of the lab (no_libraries) and of the part cost it, by
// penalty_of(), and the check that decided it.
void apply_penalties(const lab_result& r, part_result& part, bool performance_awarded) {
    part.penalty = check_penalty::none;
    part.penalty_reason.clear();
    const auto consider = [&](const std::vector<check_result>& checks) {
        for (const auto& c : checks) {
            if (c.status != check_status::failed) continue;
            const check_penalty p = penalty_of(c.name, performance_awarded);
            if (p == part.penalty || worse(p, part.penalty) != p) continue;
            part.penalty = p;
            part.penalty_reason = "check " + c.name + " failed: " + c.detail;
        }
    };
    consider(r.checks);
    consider(part.checks);
}

}  // namespace

std::string outcome_of(const lab_result& r) {
    if (!r.infrastructure_error.empty()) return "crashed";
    if (!r.build.kind.empty()) return r.build.kind == "rejected" ? "rejected" : "compile_error";
    bool crashed = false;
    for (const auto& part : r.parts) {
        if (part.correctness.status == correctness_status::timed_out) return "timeout";
        crashed = crashed || part.correctness.status == correctness_status::crashed || part.correctness.faults > 0;
    }
    return crashed ? "crashed" : "graded";
}

namespace {

void score_parts(lab_result& r, const policy& pol);

}  // namespace

void score_lab(lab_result& r, const policy& pol) {
    score_parts(r, pol);
    r.outcome = outcome_of(r);
}

namespace {

void score_parts(lab_result& r, const policy& pol) {
    if (!r.infrastructure_error.empty()) {
        r.exit_code = 2;
        r.passed = false;
        r.summary = summary_line(r);
        return;
    }
    if (!r.build.kind.empty()) {  // the student's file did not build: no part was run (max_score is the caller's)
        r.exit_code = 1;
        r.passed = false;
        r.score = 0;
        r.summary = summary_line(r);
        return;
    }
    const lab_policy& lp = pol.lab(r.lab);
    const bool gpu = r.backend == "gpu";
    const bool perf_in_max = performance_awarded(pol, gpu);
    const double part_max = r.parts.empty() ? 0 : lp.points / r.parts.size();
    r.score = r.max_score = 0;
    bool all_ok = !r.parts.empty();
    for (auto& part : r.parts) {
        apply_penalties(r, part, perf_in_max);
        const bool correct = part.correctness.status == correctness_status::passed;
        const double credit = part.timing.status == timing_status::measured ? part.timing.credit : 0.0;
        const part_points pts = score_part(part_max, lp.correctness_weight, correct, credit, part.penalty);
        part.correctness_max = part_max * lp.correctness_weight;
        part.performance_max = perf_in_max ? part_max * (1.0 - lp.correctness_weight) : 0.0;
        part.correctness_points = pts.correctness;
        part.performance_points = perf_in_max ? pts.performance : 0.0;
        r.score += part.score();
        r.max_score += part.max_points();
        all_ok = all_ok && part_passes(part, gpu);
    }
    r.passed = all_ok;
    r.exit_code = all_ok ? 0 : 1;
    r.summary = summary_line(r);
}

}  // namespace

}  // namespace course
