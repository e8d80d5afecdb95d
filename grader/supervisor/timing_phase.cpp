#include <set>

#include <fmt/format.h>

#include "core/report.hpp"
#include "core/timing_analysis.hpp"
#include "supervisor/gpu_turn.hpp"
#include "supervisor/phase_runner.hpp"
#include "supervisor/phases.hpp"

namespace course {

namespace {

timing_samples samples_of(const timing_event& ev) {
    timing_samples t;
    t.problem = ev.problem;
    t.bytes = ev.bytes;
    t.copy_gbps = ev.copy_gbps;
    t.peak_gbps = ev.peak_gbps;
    for (std::size_t k = 0; k < 3 && k < ev.kernels.size(); ++k) {
        t.kernel[k] = ev.kernels[k].kernel;
        t.ms[k] = ev.kernels[k].ms;
    }
    return t;
}

}  // namespace

timing_request timing_request_of(const session& s, int rounds, std::uint64_t seed) {
    timing_request r;
    r.seed = seed;
    r.tolerance_c = s.pol.tolerance_c;
    for (const auto& [kind, k] : s.pol.problems) r.sizes[kind] = k.timed;
    r.rounds = rounds;
    r.warmup = s.pol.warmup;
    r.flush_bytes = s.pol.flush_bytes;
    return r;
}

namespace {

// Google Benchmark's JSON of every timed run, in the order they ran: the context of the
// first report, the benchmarks of all.
void add_benchmark_report(nlohmann::json& all, const nlohmann::json& report) {
    if (!report.is_object()) return;
    if (all.is_null()) {
        all = report;
    } else if (report.contains("benchmarks")) {
        for (const auto& b : report["benchmarks"]) all["benchmarks"].push_back(b);
    }
}

}  // namespace

void timing_collected::take(const nlohmann::json& ev, std::map<std::string, part_result>& results) {
    if (is_event<timing_event>(ev)) {
        const auto timed = ev.get<timing_event>();
        const timing_samples fresh = samples_of(timed);
        auto& acc = samples[timed.part];
        if (acc.ms[0].empty()) {
            acc = fresh;
        } else {
            for (int k = 0; k < 3; ++k) acc.ms[k].insert(acc.ms[k].end(), fresh.ms[k].begin(), fresh.ms[k].end());
        }
        if (!timed.recheck.empty()) recheck[timed.part] = timed.recheck;
        add_benchmark_report(benchmark, timed.benchmark);
    } else if (is_event<timing_failed_event>(ev)) {
        const auto failed = ev.get<timing_failed_event>();
        results[failed.part].timing.status = timing_status::failed;
        results[failed.part].timing.reason = "timing failed: " + failed.message;
    }
}

void timing_phase(const session& s, std::map<std::string, part_result>& results, timing_collected* measured) {
    std::vector<std::string> ids;
    for (const auto& p : s.parts) {
        if (results[p.id].correctness.status == correctness_status::passed) {
            ids.push_back(p.id);
        } else {
            results[p.id].timing.reason = "not timed: the kernel is not correct";
        }
    }
    if (ids.empty()) return;
    const lab_policy& lp = s.lab();
    const timing_rule rule{lp.threshold_fraction, lp.floor_fraction, s.pol.confidence, s.pol.implausible_fraction};
    timing_collected own;
    timing_collected& got = measured != nullptr ? *measured : own;
    auto& samples = got.samples;
    auto& recheck = got.recheck;
    auto& benchmark = got.benchmark;

    auto measure = [&](const std::vector<std::string>& which, int rounds, int pass) {
        s.say(fmt::format("performance: {} round(s) for part(s) {}", rounds, join(which, ", ")));
        gpu_turn turn(s.lock(), gpu_turn::phase::timing);
        run_phase(
            s, which, timeouts(s.pol.timing_timeout_seconds, 3600),
            [&](const std::vector<std::string>& w) {
                turn.worker_starts();
                timing_request r = timing_request_of(s, rounds, s.seed + pass);
                r.parts = w;
                return timing_job_of(r);
            },
            {timing_event::event, timing_failed_event::event},
            [&](const nlohmann::json& ev) { got.take(ev, results); },
            [&](const std::string& id, const worker_run& run, const std::string&) {
                // Before "go" the worker ran only the course's code: not the part's fault.
                turn.blame_before_go("timing", describe_end_with_error(run));
                results[id].timing.status = timing_status::failed;
                results[id].timing.reason = "timing failed: the worker " + run.describe_end();
            },
            {}, [&](const nlohmann::json& ev) { return turn.answer(ev); });
        turn.finish();
        s.gpu_seconds.alone += turn.seconds_held();
        s.gpu_seconds.timing_ready += turn.seconds_to_ready();
        s.say(fmt::format("performance: measured with the GPU to itself for {:.2f} s", turn.seconds_held()));
    };

    // The first pass: the parts the correctness worker did not time (timing.same_worker),
    // or every correct part.
    std::vector<std::string> first;
    std::set<std::string> timed_before;
    for (const auto& id : ids) {
        if (samples.count(id)) {
            timed_before.insert(id);
        } else if (results[id].timing.status != timing_status::failed) {
            first.push_back(id);
        }
    }
    if (!first.empty()) measure(first, s.pol.rounds, 0);
    std::vector<std::string> undecided;
    for (const auto& id : ids) {
        if (!samples.count(id)) continue;
        if (analyze_timing(samples[id], rule).verdict == perf_verdict::inconclusive) undecided.push_back(id);
    }
    if (!undecided.empty() && s.pol.max_rounds > s.pol.rounds) {
        s.say("performance: too noisy to decide; measuring again");
        measure(undecided, s.pol.max_rounds - s.pol.rounds, 1);
    }
    if (!s.opt.benchmark_out.empty() && !benchmark.is_null())
        write_file_atomic(s.opt.benchmark_out, benchmark.dump(2) + "\n");
    for (const auto& id : ids) {
        auto& t = results[id].timing;
        if (!samples.count(id)) {
            if (t.status != timing_status::failed) {
                t.status = timing_status::failed;
                t.reason = "timing failed: no samples";
            }
            continue;
        }
        t = analyze_timing(samples[id], rule);
        t.worker = timed_before.count(id) ? "correctness" : "timing";
        if (recheck.count(id)) {
            t.recheck = recheck[id];
            t.credit = 0;
        }
    }
}

}  // namespace course
