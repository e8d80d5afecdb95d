#include "core/grading_plan.hpp"
#include "core/stopwatch.hpp"
#include "core/tool_output.hpp"
#include "supervisor/emulated_checks.hpp"
#include "supervisor/phases.hpp"
#include "supervisor/session.hpp"
#include "supervisor/technique_checks.hpp"

namespace course {

namespace {

// The emulator's checks of each part, from its counters: hazards, and the policy's
// emulated_checks with the lab's bank_wavefronts. On a GPU too, where racecheck already
// judges the parts it runs on (race_check_parts).
void emulated_checks(const session& s, const part_info& p, std::vector<check_result>& checks,
                     const part_result& result) {
    const lab_policy& lp = s.lab();
    const std::string& id = p.id;
    if (s.gpu() && result.correctness.status == correctness_status::passed && result.emulator_verdict != "passed") {
        checks.push_back({"traced_run", check_status::failed,
                          "the same file on the CPU emulator, whose counters grade the technique on every backend, "
                          "is not correct: " +
                              result.emulator_verdict});
        return;
    }
    for (auto& c : traced_run_check(result)) checks.push_back(c);
    for (auto& c : hazard_checks(result, p.kernel))
        if (!(c.name == "races" && racecheck_judges(lp, id, s.gpu()))) checks.push_back(c);
    for (const auto& name : counter_check_names(lp, id)) checks.push_back(counters_check(name, result, s.pol));
}

}  // namespace

void checks_phase(const session& s, lab_result& r, std::map<std::string, part_result>& results,
                  race_results races) {
    const lab_policy& lp = s.lab();
    const auto wanted = [&](const char* name) { return listed(lp.checks, name); };
    if (wanted("no_libraries"))
        r.checks.push_back(check_no_libraries(s.student_source, s.student_object, s.pol.forbidden_libraries));
    const std::string ns = s.opt.lab + "_student";
    for (const auto& p : s.parts) {
        auto& checks = results[p.id].checks;
        const bool emulated_too = s.gpu() && !results[p.id].emulator_verdict.empty();
        if (wanted("uses_shuffle")) {
            check_result c = s.gpu() ? check_uses_shuffle(s.student_object, mangled_prefix(ns, p.kernel), p.kernel)
                                     : check_emulated_shuffles(p.kernel, results[p.id]);
            if (emulated_too && c.status == check_status::passed && results[p.id].shuffles_perturbed == "unchanged")
                c = {"uses_shuffle", check_status::failed,
                     c.detail + ", but on the CPU emulator, with every shuffle's value changed, its result was still "
                                "right: the shuffles carry nothing. Sum each warp's values with the shuffles "
                                "themselves (the handout's part A)"};
            checks.push_back(c);
        }
        if (!s.gpu() || emulated_too) emulated_checks(s, p, checks, results[p.id]);
        if (s.gpu() && (wanted("bank_wavefronts") || s.opt.profile)) {
            s.say("Nsight Compute counters: part " + p.id);
            // Alone on the GPU: Nsight Compute fixes the clocks and replays the kernel, and
            // another grader's kernels would run at those clocks, or in its counters.
            const auto held = s.lock().exclusive();
            const stopwatch alone;
            check_result ncu =
                check_bank_wavefronts(s.worker, p.id, s.seed, s.pol.problem(p.kind).profiled,
                                      lp.max_wavefronts_per_request, wanted("bank_wavefronts") && !emulated_too, s.gpu());
            // With the emulator's excess count graded, Nsight Compute's whole-kernel ratio is shown.
            if (emulated_too) {
                ncu.name = "ncu_wavefronts";
                if (ncu.status != check_status::skipped) ncu.status = check_status::info;
            }
            checks.push_back(ncu);
            s.gpu_seconds.alone += alone.seconds();
        }
        if (s.opt.sanitize) {
            s.say("compute-sanitizer: part " + p.id);
            const auto held = s.lock().shared();
            checks.push_back(check_sanitize(s.worker, p.id, s.seed, s.pol.tolerance_c, sanitizer_cases(s.pol), s.gpu()));
        }
    }
    // Last in each part's list, as when racecheck ran here: it runs earlier (race_phase).
    for (auto& [id, checks] : races)
        for (auto& c : checks) results[id].checks.push_back(std::move(c));
}

}  // namespace course
