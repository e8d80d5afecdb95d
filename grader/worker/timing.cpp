#include "worker/timing.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <exception>
#include <map>
#include <stdexcept>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "inputs/perturbation.hpp"
#include "core/stats.hpp"
#include "course/device_buffer.hpp"
#include "course/event_timer.hpp"
#include "worker/events.hpp"
#include "worker/go_signal.hpp"
#include "worker/input_maker.hpp"
#include "worker/problem_kind.hpp"

namespace course {

namespace {

const char* const role_names[3] = {"naive", "reference", "student"};

// A memset of a buffer far larger than the L2 between samples, so every sample reads
// its input from DRAM, as a real workload would.
class l2_flusher {
public:
    explicit l2_flusher(std::size_t bytes) : buf_(bytes, "L2 flush") {}
    void flush(int round) { CUDA_CHECK(cudaMemsetAsync(buf_.data(), round & 0xFF, buf_.size())); }
    device_buffer<unsigned char>& buffer() { return buf_; }

private:
    device_buffer<unsigned char> buf_;
};

// cudaMemcpy device to device of the whole flush buffer, counting bytes read plus bytes
// written: the roof a memory-bound kernel is compared with. It needs a copy this large
// (256 MiB by default): small copies are dominated by their start-up and read low.
double measure_copy_gbps(l2_flusher& flusher) {
    auto& src = flusher.buffer();
    device_buffer<unsigned char> dst(src.size(), "copy roof");
    event_timer timer;
    std::vector<double> ms;
    for (int i = 0; i < 8; ++i) {
        timer.start();
        CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), src.size(), cudaMemcpyDeviceToDevice));
        timer.stop();
        const double t = timer.elapsed_ms();
        if (i > 0) ms.push_back(t);  // the first copy is the warm-up
    }
    return 2.0 * static_cast<double>(src.size()) / (median(ms) * 1e-3) / 1e9;
}

// Collects Google Benchmark's JSON report of every round of a part into one report, which
// travels to the supervisor in the part's timing event: the supervisor writes the file.
class benchmark_json {
public:
    void add(const std::string& text) {
        if (text.empty()) return;
        auto doc = nlohmann::json::parse(text, nullptr, false);
        if (doc.is_discarded()) return;
        if (merged_.is_null()) {
            merged_ = doc;
        } else {
            for (auto& b : doc["benchmarks"]) merged_["benchmarks"].push_back(b);
        }
    }
    const nlohmann::json& report() const { return merged_; }

private:
    nlohmann::json merged_;
};

// "expected 16777216.5, got 16773616.25; off by 3600.25": what a wrong run gave.
std::string what_went_wrong(const case_record& rec) {
    if (rec.fault) return rec.detail;
    const std::string numbers = fmt::format("expected {:.9g}, got {:.9g}", rec.expected, rec.got);
    return rec.detail.empty() ? numbers : numbers + "; " + rec.detail;
}

// Checks each run of the student's version as it happens; remembers the first wrong one.
class run_checker {
public:
    run_checker(problem& prob, const part& student) : prob_(prob), student_(student) {}
    void check(const std::string& which) {
        if (!failure_.empty()) return;
        const case_record rec = prob_.check_run(student_);
        if (!rec.ok) failure_ = wrong_run_message(which, what_went_wrong(rec));
    }
    bool failed() const { return !failure_.empty(); }
    const std::string& failure() const { return failure_; }

private:
    problem& prob_;
    const part& student_;
    std::string failure_;
};

// One round: the three versions in order, each on a changed input with poisoned outputs
// (prepared outside the events and before the flush, so neither is timed or left in the
// L2), registered and run as Google Benchmark benchmarks.
void time_round(const timing_job& job, const timed_part& tp, problem& prob, l2_flusher& flusher, event_timer& timer,
                int r, std::vector<double> (&samples)[3], benchmark_json& bench_json) {
    const part& student = *tp.versions[2];
    benchmark::ClearRegisteredBenchmarks();
    for (int k = 0; k < 3; ++k) {
        const std::string name = job.lab + "/" + student.id + "/" + role_names[k] + ":" + tp.versions[k]->kernel +
                                 "/round:" + std::to_string(r);
        benchmark::RegisterBenchmark(name.c_str(), [&, r, k](benchmark::State& state) {
            for (auto _ : state) {
                prob.prepare_run();
                flusher.flush(r);
                timer.start();
                prob.run(*tp.versions[k]);
                timer.stop();
                const double ms = timer.elapsed_ms();
                state.SetIterationTime(ms * 1e-3);
                samples[k].push_back(ms);
            }
            state.SetBytesProcessed(static_cast<std::int64_t>(prob.bytes()) * state.iterations());
        })
            ->UseManualTime()
            ->Iterations(1)
            ->Unit(benchmark::kMillisecond);
    }
    std::ostringstream json_text, json_errors;
    benchmark::JSONReporter reporter;
    reporter.SetOutputStream(&json_text);
    reporter.SetErrorStream(&json_errors);
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::ClearRegisteredBenchmarks();
    bench_json.add(json_text.str());
}

// The seed of the fresh input drawn after a part's timing.
std::uint64_t fresh_seed(const timing_job& job) { return job.seed ^ 0x5eed5eed5eedull; }

const problem_size& timed_size(const timing_job& job, const part& p) {
    const auto it = job.sizes.find(p.kind);
    if (it == job.sizes.end())
        throw std::invalid_argument("the timing request has no size for problem kind \"" + p.kind + "\"");
    return it->second;
}

void time_part(const timing_job& job, const timed_part& tp, problem* prob, l2_flusher& flusher, double copy_gbps,
               const device_info& device) {
    const part& student = *tp.versions[2];
    benchmark_json bench_json;
    run_checker checker(*prob, student);
    for (int w = 0; w < job.warmup; ++w) {
        for (const part* v : tp.versions) {
            prob->prepare_run();
            prob->run(*v);
        }
        checker.check("warm-up run " + std::to_string(w + 1) + " of " + std::to_string(job.warmup));
    }
    CUDA_CHECK(cudaDeviceSynchronize());

    // Rounds run one at a time, so that the student's run, the last of each round, is
    // checked before the next round changes the input again. Timing stops at the first
    // wrong result, after at least one round: the supervisor needs samples to report.
    std::vector<double> samples[3];
    event_timer timer;
    for (int r = 0; r < job.rounds && !(checker.failed() && r > 0); ++r) {
        time_round(job, tp, *prob, flusher, timer, r, samples, bench_json);
        checker.check("timed run " + std::to_string(r + 1) + " of " + std::to_string(job.rounds));
    }

    // The order of the rounds ends with the student's version: check all it left, then
    // draw a fresh input and run once more.
    std::string recheck = checker.failure();
    if (recheck.empty()) {
        const case_record last = prob->check_last(student);
        if (!last.ok) recheck = "the last timed run gave a wrong result (" + last.detail + ")";
    }
    if (recheck.empty()) {
        const case_record fresh = prob->rerun_fresh(student);
        if (!fresh.ok)
            recheck = "a run on fresh inputs after timing gave a wrong result (" + fresh.detail +
                      "): does the kernel keep state between calls?";
    }

    timing_event event;
    event.part = student.id;
    event.problem = prob->label();
    event.bytes = static_cast<double>(prob->bytes());
    for (int k = 0; k < 3; ++k) event.kernels.push_back({role_names[k], tp.versions[k]->kernel, samples[k]});
    event.copy_gbps = copy_gbps;
    event.peak_gbps = device.peak_gbps;
    event.recheck = recheck;
    event.benchmark = bench_json.report();
    events().emit(event);
}

// timing_ready_event, then "go" on stdin (wait_for_go).
void say_ready_and_wait(const timing_job& job) {
    timing_ready_event ready;
    for (const auto& tp : job.parts) ready.parts.push_back(tp.versions[2]->id);
    events().emit(ready);
    wait_for_go("timing");
}

}  // namespace

void run_timing(const timing_job& job, const device_info& device) {
    int argc = 1;
    char arg0[] = "grader";
    char* argv[] = {arg0, nullptr};
    benchmark::Initialize(&argc, argv);
    benchmark::AddCustomContext("device", device.name);
    benchmark::AddCustomContext("sms", std::to_string(device.sms));
    benchmark::AddCustomContext("l2_bytes", std::to_string(device.l2_bytes));
    benchmark::AddCustomContext("cuda_runtime", std::to_string(device.runtime_version));

    // The host work first, holding no GPU (other graders may be timing): every part's
    // inputs and their exact sums, and the fresh input of the check after timing, where a
    // kind makes them on the host (a reduction's are made on the device with its problem,
    // after "go": worker/input_maker.hpp). No kernel runs, and nothing is allocated on the
    // GPU, before "go".
    // Parts of one kind and record length draw the same inputs (one seed per job): each is
    // made once and copied for the next part, since a copy of 2^25 floats costs a fraction
    // of making them and their exact sums, CPU that graders sharing a host run short of.
    std::vector<problem_inputs> inputs;
    std::map<std::string, std::size_t> made;  // kind/record length/size -> its first part's inputs
    for (const timed_part& tp : job.parts) {
        const part& student = *tp.versions[2];
        const problem_size& size = timed_size(job, student);
        const std::string key = student.kind + "/" + std::to_string(student.record_len) + "/" + size.word();
        if (const auto it = made.find(key); it != made.end()) {
            inputs.push_back(inputs[it->second]);
            continue;
        }
        made.emplace(key, inputs.size());
        inputs.push_back(problem_kind_named(student.kind).make_inputs(student, size, job.seed, fresh_seed(job),
                                                                      inputs_made_on_device));
    }
    say_ready_and_wait(job);

    l2_flusher flusher(job.flush_bytes);
    const double copy_gbps = measure_copy_gbps(flusher);
    for (std::size_t i = 0; i < job.parts.size(); ++i) {
        const timed_part& tp = job.parts[i];
        const std::string& id = tp.versions[2]->id;
        events().emit(timing_begin_event{id});
        try {
            const part& student = *tp.versions[2];
            const auto prob = problem_kind_named(student.kind).make_problem(tp.versions, timed_size(job, student),
                                                                            job.tolerance_c, std::move(inputs[i]));
            time_part(job, tp, prob.get(), flusher, copy_gbps, device);
        } catch (const cuda_error& e) {
            events().emit(timing_failed_event{id, e.what()});
            if (e.sticky()) throw;
        } catch (const std::exception& e) {
            events().emit(timing_failed_event{id, e.what()});
        }
    }
}

}  // namespace course
