#include <algorithm>

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

timing_request request_of(const session& s, int rounds, std::uint64_t seed) {
    timing_request r;
    r.seed = seed;
    r.tolerance_c = s.pol.tolerance_c;
    for (const auto& [kind, k] : s.pol.problems) r.sizes[kind] = k.timed;
    r.rounds = rounds;
    r.warmup = s.pol.warmup;
    r.flush_bytes = s.pol.flush_bytes;
    return r;
}

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

// A measured run's samples added to what earlier runs measured: rounds of one part pool.
void add_measured(timing_measured& into, timing_measured from) {
    for (auto& [id, fresh] : from.samples) {
        auto& acc = into.samples[id];
        if (acc.ms[0].empty()) {
            acc = std::move(fresh);
        } else {
            for (int k = 0; k < 3; ++k) acc.ms[k].insert(acc.ms[k].end(), fresh.ms[k].begin(), fresh.ms[k].end());
        }
    }
    for (auto& [id, why] : from.recheck) into.recheck[id] = std::move(why);
    for (auto& [id, why] : from.failed) into.failed[id] = std::move(why);
    if (from.benchmark.is_object()) add_benchmark_report(into.benchmark, from.benchmark);
    into.held += from.held;
}

// An early run stopped by the grading: run_phase must start no worker after it.
struct run_dropped {};

// `rounds` rounds of the parts `which` (seed s.seed + pass), one worker (again after one
// dies, for the parts it left), the GPU held alone through `lock` from each worker's "go".
// `before_go`, if given, is asked at the first worker's timing_ready whether to go on;
// `stop`, if given, kills the run once it reads true (run_dropped is then thrown).
timing_measured measure(const session& s, const std::vector<std::string>& which, int rounds, int pass,
                        const gpu_lock& lock, const std::function<bool()>& before_go = {},
                        const std::atomic<bool>* stop = nullptr) {
    timing_measured got;
    bool said = false;
    gpu_turn turn(lock, gpu_turn::phase::timing);
    worker_limits limits = timeouts(s.pol.timing_timeout_seconds, 3600);
    limits.stop = stop;
    run_phase(
        s, which, limits,
        [&](const std::vector<std::string>& w) {
            turn.worker_starts();
            timing_request r = request_of(s, rounds, s.seed + pass);
            r.parts = w;
            return timing_job_of(r);
        },
        {timing_event::event, timing_failed_event::event},
        [&](const nlohmann::json& ev) {
            timing_measured one;
            if (is_event<timing_event>(ev)) {
                const auto timed = ev.get<timing_event>();
                one.samples[timed.part] = samples_of(timed);
                if (!timed.recheck.empty()) one.recheck[timed.part] = timed.recheck;
                one.benchmark = timed.benchmark;
            } else if (is_event<timing_failed_event>(ev)) {
                const auto failed = ev.get<timing_failed_event>();
                one.failed[failed.part] = "timing failed: " + failed.message;
            }
            add_measured(got, std::move(one));
        },
        [&](const std::string& id, const worker_run& run, const std::string&) {
            if (run.stopped) throw run_dropped{};
            // Before "go" the worker ran only the course's code: not the part's fault.
            turn.blame_before_go("timing", describe_end_with_error(run));
            got.failed[id] = "timing failed: the worker " + run.describe_end();
        },
        {}, [&](const nlohmann::json& ev) {
            if (!is_event<timing_ready_event>(ev)) return turn.answer(ev);
            if (before_go && !before_go()) return std::string();
            // Said once the worker is ready: an early one's wait is not the student's to see.
            if (!said) s.say(fmt::format("performance: {} round(s) for part(s) {}", rounds, join(which, ", ")));
            said = true;
            return turn.answer(ev);
        });
    turn.finish();
    got.held = turn.seconds_held();
    s.say(fmt::format("performance: measured with the GPU to itself for {:.2f} s", got.held));
    return got;
}

}  // namespace

early_timing_run::early_timing_run(const session& s) : s_(s) {
    if (!s.gpu() || s.parts.empty()) return;
    parts_ = s.part_ids();
    // The lock with its own count of the seconds waited: the session's is added to by the
    // correctness phase meanwhile.
    result_ = std::async(std::launch::async, [this] {
        return measure(s_, parts_, s_.pol.rounds, 0, gpu_lock(s_.opt.gpu_lock, &waited_),
                       [this] { return wait_for_use(); }, &stop_);
    });
}

early_timing_run::~early_timing_run() { stop(); }

bool early_timing_run::wait_for_use() {
    std::unique_lock<std::mutex> hold(m_);
    decided_.wait(hold, [this] { return gate_ != gate::waiting; });
    return gate_ == gate::go;
}

void early_timing_run::part_not_correct(const std::string& id) {
    if (std::find(parts_.begin(), parts_.end(), id) == parts_.end()) return;
    stop_ = true;
    const std::lock_guard<std::mutex> hold(m_);
    if (gate_ == gate::waiting) gate_ = gate::dropped;
    decided_.notify_all();
}

void early_timing_run::stop() {
    if (!result_.valid()) return;
    part_not_correct(parts_.front());
    try {
        (void)result_.get();
    } catch (...) {
        // Stopped: whatever went wrong in it no longer matters.
    }
    s_.gpu_seconds.waited += waited_;
}

timing_measured early_timing_run::use() {
    {
        const std::lock_guard<std::mutex> hold(m_);
        if (gate_ == gate::waiting) gate_ = gate::go;
        decided_.notify_all();
    }
    struct add_wait {
        const session& s;
        const double& waited;
        ~add_wait() { s.gpu_seconds.waited += waited; }
    } at_end{s_, waited_};
    return result_.get();  // rethrows a failure to take the GPU, as a worker started now would
}

void timing_phase(const session& s, std::map<std::string, part_result>& results, early_timing_run* early) {
    std::vector<std::string> ids;
    for (const auto& p : s.parts) {
        if (results[p.id].correctness.status == correctness_status::passed) {
            ids.push_back(p.id);
        } else {
            results[p.id].timing.reason = "not timed: the kernel is not correct";
        }
    }
    const bool use_early = early != nullptr && early->running() && early->parts() == ids;
    if (early != nullptr && !use_early) early->stop();
    if (ids.empty()) return;
    const lab_policy& lp = s.lab();
    const timing_rule rule{lp.threshold_fraction, lp.floor_fraction, s.pol.confidence, s.pol.implausible_fraction};
    timing_measured m = use_early ? early->use() : measure(s, ids, s.pol.rounds, 0, s.lock());
    std::vector<std::string> undecided;
    for (const auto& id : ids) {
        if (!m.samples.count(id)) continue;
        if (analyze_timing(m.samples[id], rule).verdict == perf_verdict::inconclusive) undecided.push_back(id);
    }
    if (!undecided.empty() && s.pol.max_rounds > s.pol.rounds) {
        s.say("performance: too noisy to decide; measuring again");
        add_measured(m, measure(s, undecided, s.pol.max_rounds - s.pol.rounds, 1, s.lock()));
    }
    s.gpu_seconds.alone += m.held;
    if (!s.opt.benchmark_out.empty() && !m.benchmark.is_null())
        write_file_atomic(s.opt.benchmark_out, m.benchmark.dump(2) + "\n");
    for (const auto& id : ids) {
        auto& t = results[id].timing;
        if (m.failed.count(id)) {
            t.status = timing_status::failed;
            t.reason = m.failed[id];
        }
        if (!m.samples.count(id)) {
            if (t.status != timing_status::failed) {
                t.status = timing_status::failed;
                t.reason = "timing failed: no samples";
            }
            continue;
        }
        t = analyze_timing(m.samples[id], rule);
        if (m.recheck.count(id)) {
            t.recheck = m.recheck[id];
            t.credit = 0;
        }
    }
}

}  // namespace course
