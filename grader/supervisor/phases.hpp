#pragma once
#include <atomic>
#include <functional>
#include <future>
#include <map>
#include <string>
#include <vector>

#include "core/protocol.hpp"
#include "core/result.hpp"
#include "core/timing_analysis.hpp"
#include "supervisor/session.hpp"

namespace course {

// The phases of grading a lab, in order; each fills the parts' results by id.

// What the timing runs of a grading measured, by part: from timing events (`take`; a
// timing_failed_event marks the part's result failed).
struct timing_collected {
    std::map<std::string, timing_samples> samples;
    std::map<std::string, std::string> recheck;
    nlohmann::json benchmark;  // Google Benchmark's JSON of every timed run
    void take(const nlohmann::json& event, std::map<std::string, part_result>& results);
};

// GPU, policy timing.same_worker: the correctness worker times the parts that pass once its
// cases end, in its own process and CUDA context (correctness_then_timing_job_of).
// `request` is its timing (every part); `ready` answers its timing_ready_event (the event
// as it came), once the correctness worker's shared hold of the GPU is let go: "go" once the
// grading holds the GPU alone, or "stop"; `collected` takes its timing events.
struct timing_next {
    timing_request request;
    std::function<std::string(const nlohmann::json& ready)> ready;
    timing_collected* collected = nullptr;
};

// Every part's correctness cases, on the session's backend, with the hint of a failure;
// `not_correct`, if given, is told each part that fails as soon as it is known; `then`, if
// given, times next in the same worker.
void correctness_phase(const session& s, std::map<std::string, part_result>& results,
                       const std::function<void(const std::string& part)>& not_correct = {},
                       const timing_next* then = nullptr);

// The request of a timing run of `rounds` rounds (its parts left empty).
timing_request timing_request_of(const session& s, int rounds, std::uint64_t seed);

// GPU: the correct parts timed against the naive baseline and the reference, measured
// again when the verdict is too close to call; writes --benchmark-out. `measured`: what the
// correctness worker already timed (timing_next); the parts it left are timed here.
void timing_phase(const session& s, std::map<std::string, part_result>& results,
                  timing_collected* measured = nullptr);

// GPU: the same parts' correctness cases on the CPU emulator, for its counters and
// hazards, which the technique checks read on both backends (emulator_verdict says how the
// emulator's cases went). It needs no GPU, so it runs on a thread of its own beside the
// GPU's correctness cases: start_... starts it (no future when the build has no emulated
// worker) and take_... moves what it found into the parts' results.
struct emulated_run {
    std::map<std::string, part_result> parts;
    double seconds = 0;  // its own wall time, beside the GPU's cases
    std::string reference_counters;  // lab_result::reference_counters of its run
};
std::future<emulated_run> start_emulated_technique_run(const session& s);
void take_emulated_technique_run(const session& s, emulated_run run, std::map<std::string, part_result>& results);

// GPU: compute-sanitizer racecheck of the correct parts the lab's race_check_parts name,
// in one run. It holds the GPU shared, like the correctness cases, and nearly every part a
// class hands in is correct, so it starts beside them (early_race_run, on every such part)
// rather than after them; race_phase then takes its result when every one of those parts
// turned out correct, and otherwise stops it and runs again on the correct ones: a kernel
// that is wrong (that faults, hangs or floods the reports) never decides another part's
// check, and every verdict is the one a run after correctness would give. Its checks, by
// part id (none off a GPU).
using race_results = std::map<std::string, std::vector<check_result>>;
class early_race_run {
public:
    explicit early_race_run(const session& s);  // starts nothing off a GPU or without such parts
    ~early_race_run();                           // stops it, if still running
    early_race_run(const early_race_run&) = delete;
    early_race_run& operator=(const early_race_run&) = delete;

    bool running() const { return result_.valid(); }
    bool stopped() const { return stop_; }
    const std::vector<std::string>& parts() const { return parts_; }
    // Waits for it; adds its lock wait and GPU seconds to the session's.
    race_results take();
    // Kills its run and drops whatever it found.
    void stop();
    // The correctness phase found part `id` not correct: a run that checks it is stopped
    // (from any thread; its thread is waited for by stop() or the destructor).
    void part_not_correct(const std::string& id);

private:
    const session& s_;
    std::vector<std::string> parts_;
    std::atomic<bool> stop_{false};
    void add_seconds() const;  // its seconds to the session's, once its run has ended
    double waited_ = 0, held_ = 0, ready_ = 0;  // its own: the correctness phase adds to the session's meanwhile
    std::future<race_results> result_;
};
race_results race_phase(const session& s, const std::map<std::string, part_result>& results,
                        early_race_run* early = nullptr);

// The policy's technique checks of the lab (into `r`) and of each part; `races` (from
// race_phase) last in each part's list.
void checks_phase(const session& s, lab_result& r, std::map<std::string, part_result>& results,
                  race_results races = {});

}  // namespace course
