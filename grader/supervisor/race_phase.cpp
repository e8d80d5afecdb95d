#include <algorithm>
#include <stdexcept>

#include "core/grading_plan.hpp"
#include "supervisor/phases.hpp"
#include "supervisor/session.hpp"
#include "supervisor/technique_checks.hpp"

namespace course {

namespace {

// The part ids of `targets`, in order.
std::vector<std::string> ids_of(const std::vector<race_target>& targets) {
    std::vector<std::string> ids;
    for (const auto& t : targets) ids.push_back(t.part);
    return ids;
}

// A racecheck run's seconds on the GPU, held shared and before its "go", added to the session's.
void add_race_seconds(const session& s, double held, double ready) {
    s.gpu_seconds.shared += held;
    s.gpu_seconds.racecheck_shared += held;
    s.gpu_seconds.racecheck_ready += ready;
}

race_target target_of(const session& s, const part_info& p) {
    // The student's kernels live in namespace <lab>_student (docs/architecture.md).
    return {p.id, s.opt.lab + "_student::" + p.kernel, p.kernel, p.kind};
}

// One racecheck run of `targets` (check_races), holding the GPU shared through `lock` from
// each run's "go"; `held` gets the seconds it held it, `ready` those before its "go".
race_results run_racecheck(const session& s, const std::vector<race_target>& targets, const gpu_lock& lock,
                           const std::atomic<bool>* stop, double& held, double& ready) {
    race_options options;
    options.cases.seed = s.seed;
    options.cases.tolerance_c = s.pol.tolerance_c;
    options.cases.inputs = s.pol.race_check_inputs;
    options.cases.problems = sanitizer_cases(s.pol);
    options.timeout_seconds = s.pol.race_check_timeout_seconds;
    options.stop = stop;
    // compute-sanitizer checks what the kernels do, not how fast: correctness cases, this
    // grading's and other graders', may share the GPU meanwhile.
    gpu_turn turn(lock, gpu_turn::phase::correctness);
    options.turn = &turn;
    race_results found;
    for (auto& [id, check] : check_races(s.worker, targets, options, true)) found[id].push_back(check);
    turn.finish();
    held += turn.seconds_held();
    ready += turn.seconds_to_ready();
    return found;
}

}  // namespace

early_race_run::early_race_run(const session& s) : s_(s) {
    const lab_policy& lp = s.lab();
    std::vector<race_target> targets;
    for (const auto& p : s.parts)
        if (racecheck_judges(lp, p.id, true)) targets.push_back(target_of(s, p));
    if (!s.gpu() || targets.empty()) return;
    parts_ = ids_of(targets);
    s.say("compute-sanitizer racecheck: part(s) " + join(parts_, ", ") + ", beside the correctness cases");
    // Its own count of the seconds waited for the lock: the correctness phase adds to the
    // session's meanwhile.
    result_ = std::async(std::launch::async, [this, targets] {
        return run_racecheck(s_, targets, gpu_lock(s_.opt.gpu_lock, &waited_), &stop_, held_, ready_);
    });
}

early_race_run::~early_race_run() { stop(); }

void early_race_run::part_not_correct(const std::string& id) {
    // Its result is no longer wanted: stopped now rather than after the correctness phase,
    // so that a kernel that hangs holds the GPU's lock no longer than its correctness case.
    if (std::find(parts_.begin(), parts_.end(), id) != parts_.end()) stop_ = true;
}

void early_race_run::stop() {
    if (!result_.valid()) return;
    stop_ = true;
    try {
        (void)result_.get();
    } catch (...) {
        // Stopped: whatever went wrong in it no longer matters.
    }
    add_seconds();
}

race_results early_race_run::take() {
    try {
        race_results found = result_.get();
        add_seconds();
        return found;
    } catch (...) {
        add_seconds();
        throw;  // a failure to take the GPU, as a run after correctness would fail
    }
}

void early_race_run::add_seconds() const {
    s_.gpu_seconds.waited += waited_;
    add_race_seconds(s_, held_, ready_);
}

race_results race_phase(const session& s, const std::map<std::string, part_result>& results, early_race_run* early) {
    race_results found;
    if (!s.gpu()) return found;
    const lab_policy& lp = s.lab();
    std::vector<race_target> targets;
    for (const auto& p : s.parts) {
        if (!racecheck_judges(lp, p.id, true)) continue;
        const auto it = results.find(p.id);
        if (it != results.end() && it->second.correctness.status == correctness_status::passed) {
            targets.push_back(target_of(s, p));
        } else {
            found[p.id].push_back({"races", check_status::skipped, "not checked: the kernel is not correct"});
        }
    }
    // A run stopped (a part found not correct, even if a later event said otherwise) has
    // checked nothing to the end: it is never taken.
    if (early != nullptr && early->running() && !early->stopped() && early->parts() == ids_of(targets))
        return early->take();
    // Some part is not correct: its kernel (a fault, a hang, a flood of hazards) must not
    // decide the others' check, so they run again without it, as they would have had
    // racecheck waited for correctness.
    if (early != nullptr) early->stop();
    if (targets.empty()) return found;
    s.say("compute-sanitizer racecheck: part(s) " + join(ids_of(targets), ", "));
    double held = 0, ready = 0;
    for (auto& [id, checks] : run_racecheck(s, targets, s.lock(), nullptr, held, ready)) found[id] = std::move(checks);
    add_race_seconds(s, held, ready);
    return found;
}

}  // namespace course
