#include "supervisor/grade_lab.hpp"

#include <algorithm>
#include <ctime>
#include <map>

#include <fmt/format.h>

#include "core/grading_plan.hpp"
#include "core/hints.hpp"
#include "course/printf_bound.hpp"
#include "inputs/inputs.hpp"
#include "core/ladder.hpp"
#include "core/lab_scoring.hpp"
#include "core/stopwatch.hpp"
#include "supervisor/gpu_turn.hpp"
#include "supervisor/phases.hpp"
#include "supervisor/session.hpp"
#include "supervisor/worker_choice.hpp"

namespace course {

namespace {

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

}  // namespace

lab_result failed_build_result(const grade_options& opt, const policy& pol, const build_failure& failure,
                               const std::string& source) {
    lab_result r;
    r.lab = opt.lab;
    r.started_at = utc_now();
    r.build = failure;
    describe_source(opt, source, "", r);
    try {
        // Out of what a run on this machine would have been out of: performance counts only
        // with a GPU grader (a guess: whether a GPU is usable is known only by running it).
        const lab_policy& lp = pol.lab(opt.lab);
        const bool gpu = !opt.force_emulate && executable(worker_path(opt, "gpu"));
        r.max_score = performance_awarded(pol, gpu) ? lp.points : lp.points * lp.correctness_weight;
        score_lab(r, pol);
    } catch (const std::exception& e) {
        r.build = {};
        r.infrastructure_error = e.what();
        score_lab(r, pol);
    }
    return r;
}

lab_result grade_lab(const grade_options& opt, const policy& pol) {
    lab_result r;
    r.lab = opt.lab;
    r.started_at = utc_now();
    session s(opt, pol);
    s.seed = opt.seed ? *opt.seed : fresh_seed();
    r.seed = s.seed;
    const stopwatch total;
    stopwatch phase;
    // Each phase's seconds (lab_result::seconds), taken when the next one starts.
    const auto lap = [&](const char* name) {
        r.seconds[name] = phase.seconds();
        phase.restart();
    };

    try {
        (void)pol.lab(opt.lab);
        const std::string err = choose_worker(s, r);
        lap("start");
        if (!err.empty()) {
            r.infrastructure_error = err;
            score_lab(r, pol);
            r.seconds["total"] = total.seconds();
            return r;
        }
        std::map<std::string, part_result> results;
        // Only a GPU is shared: correctness cases run side by side with other graders'
        // (once their inputs are made: correctness_phase); timing (once its inputs are
        // made: timing_phase) and Nsight Compute (in the checks phase) have it to themselves.
        // On a GPU, the emulator's run of the same file goes on beside the correctness cases
        // and racecheck (it needs only the CPU), and ends before timing, which it must not
        // slow down: `emulator` is its own wall time, `emulator_wait` what the grading waited
        // for it after them.
        std::future<emulated_run> emulated;
        if (s.gpu()) emulated = start_emulated_technique_run(s);
        // Racecheck too, on the GPU (it holds it shared): `racecheck` is what the grading waited
        // for it after the correctness cases.
        early_race_run early_races(s);
        race_results races;
        // Between the correctness cases and timing on a GPU: racecheck's verdicts, and the
        // emulator's run, which must end before timing. Once, wherever timing begins.
        bool between_done = false;
        const auto between = [&] {
            if (between_done) return;
            between_done = true;
            lap("correctness");
            races = race_phase(s, results, &early_races);
            lap("racecheck");
            if (emulated.valid()) {
                emulated_run run = emulated.get();
                r.seconds["emulator"] = run.seconds;
                r.reference_counters = run.reference_counters;
                take_emulated_technique_run(s, std::move(run), results);
            }
            lap("emulator_wait");
        };
        // timing.same_worker: the correctness worker times the parts that pass next. It times
        // only parts this grading found correct, once; whatever it leaves, timing_phase times.
        timing_collected timed;
        gpu_turn timing_turn(s.lock(), gpu_turn::phase::timing);
        timing_next then{timing_request_of(s, pol.rounds, s.seed), {}, &timed};
        then.ready = [&](const nlohmann::json& ready) -> std::string {
            const bool first = !between_done;
            between();
            const auto ids = ready.get<timing_ready_event>().parts;
            const bool all_correct = std::all_of(ids.begin(), ids.end(), [&](const std::string& id) {
                return results[id].correctness.status == correctness_status::passed;
            });
            if (!first || ids.empty() || !all_correct) return "stop\n";
            s.say(fmt::format("performance: {} round(s) for part(s) {}, in the correctness cases' worker", pol.rounds,
                              join(ids, ", ")));
            timing_turn.worker_starts();
            return timing_turn.answer(ready);
        };
        // Not with --show-output, which runs a worker per part: a later part's worker would
        // start while this grading held the GPU alone for an earlier one's timing.
        const bool time_next = s.gpu() && pol.timing_same_worker && !opt.kernel_output;
        correctness_phase(s, results, [&](const std::string& id) { early_races.part_not_correct(id); },
                          time_next ? &then : nullptr);
        if (s.gpu()) {
            between();
            // The emulator's run and the GPU's hints are both in now (with timing.same_worker
            // the run came in before the correctness phase set its hints).
            apply_race_hints(results);
            timing_turn.finish();
            s.gpu_seconds.alone += timing_turn.seconds_held();
            s.gpu_seconds.timing_ready += timing_turn.seconds_to_ready();
            timing_phase(s, results, &timed);
            lap("timing");
        } else {
            lap("correctness");
            r.reference_counters = s.reference_counters;
            for (auto& [id, pr] : results) pr.timing.reason = "not timed: the CPU emulator cannot time kernels (its counters below stand in)";
            if (opt.profile)
                r.notes.push_back("--profile did not run: Nsight Compute needs a GPU. The emulator's counters below "
                                  "count the shared-memory wavefronts instead.");
        }
        checks_phase(s, r, results, std::move(races));
        lap("checks");
        if (s.unshown_output_lines > 0)
            r.notes.push_back(fmt::format("Your kernels printed {} line(s) while being graded, not shown here: "
                                          "./grade {} --show-output shows the first 200 of each part.",
                                          s.unshown_output_lines, opt.lab));
        if (s.output_cut)
            r.notes.push_back(fmt::format(
                "Your kernels' printf output was cut: a grade keeps the first {} printf calls of each worker on a "
                "GPU and the first {} bytes on the CPU emulator, and later calls print nothing (a GPU prints a few "
                "thousand lines a second, so a printf in every thread of a large launch would run for minutes). "
                "Print from one thread, e.g. if (blockIdx.x == 0 && threadIdx.x == 0), to see your values.",
                course::printf_bound::gpu_calls, course::printf_bound::emulated_bytes));
        for (const auto& meta : s.parts) {
            part_result pr = results[meta.id];
            if (pr.correctness.status == correctness_status::passed)
                pr.ladder = ladder_words(ladder_rung(pr.counters, s.pol.problem(meta.kind).ladder));
            pr.id = meta.id;
            pr.title = meta.title;
            pr.kernel = meta.kernel;
            r.parts.push_back(pr);
        }
    } catch (const std::exception& e) {
        r.infrastructure_error = e.what();
    }
    if (s.gpu()) r.seconds["gpu_alone"] = s.gpu_seconds.alone;
    if (s.gpu()) r.seconds["gpu_shared"] = s.gpu_seconds.shared;
    // Where the workers' time went before their "go", on either backend, and racecheck's
    // share of the GPU held shared.
    r.seconds["correctness_ready"] = s.gpu_seconds.correctness_ready;
    if (s.gpu()) r.seconds["timing_ready"] = s.gpu_seconds.timing_ready;
    if (s.gpu()) r.seconds["racecheck_ready"] = s.gpu_seconds.racecheck_ready;
    if (s.gpu()) r.seconds["racecheck_shared"] = s.gpu_seconds.racecheck_shared;
    if (s.gpu() && !opt.gpu_lock.empty()) r.seconds["gpu_wait"] = s.gpu_seconds.waited;
    r.seconds["total"] = total.seconds();
    score_lab(r, pol);
    return r;
}

}  // namespace course
