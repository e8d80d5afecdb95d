#pragma once
#include <exception>
#include <string>

#include <nlohmann/json.hpp>

#include "core/stopwatch.hpp"
#include "supervisor/gpu_lock.hpp"

namespace course {

// A worker starts holding nothing: it creates its CUDA context (which runs no kernel) and
// makes its inputs on the host (the CPU-heavy part), says it is ready, and allocates no
// buffer and runs no kernel before it is told "go". The supervisor first takes the GPU as
// the worker's phase needs it, and holds it until the next worker starts or the phase ends:
//   timing:      alone (after timing_ready_event), for the buffers, the uploads and the
//                timed runs;
//   correctness: shared (after correctness_ready_event), for the cases; racecheck too.
// Until that answer no code of the student's has run in the worker (the course's rules
// allow a lab file no code that runs by itself). One answer per worker: a second "ready",
// which the student's code could write, gets none, so the hold never changes while the
// student's code runs.
class gpu_turn {
public:
    enum class phase { timing, correctness };
    gpu_turn(gpu_lock lock, phase p) : lock_(std::move(lock)), phase_(p) {}

    // Before each worker starts: lets go of what the last one held; rethrows a failure to
    // take the GPU for an earlier worker (another worker would fail the same way).
    void worker_starts();
    // The reply to a worker's event (worker_reply): "go\n" to its first ready event once
    // the GPU is held, "stop\n" if it cannot be taken, "" otherwise.
    std::string answer(const nlohmann::json& event);
    // After the phase: lets the GPU go, and rethrows a failure to take it.
    void finish();
    // For a worker that ended without finishing its parts: throws when it was never told
    // to go, so that no code of the student's ran and no part is to blame: the failure to
    // take the GPU, or a std::runtime_error saying that the `what` worker ended (`how`)
    // before it was ready.
    void blame_before_go(const std::string& what, const std::string& how) const;

    // Seconds the GPU was held after a "go": alone (timing) or shared (correctness).
    double seconds_held() const { return seconds_held_; }
    // Seconds from each worker's start to its ready event, added: its process, sandbox,
    // CUDA context and inputs, before it waits for the GPU.
    double seconds_to_ready() const { return seconds_to_ready_; }

private:
    void release();

    gpu_lock lock_;
    phase phase_;
    gpu_lock::hold held_;
    bool answered_ = false, going_ = false;
    stopwatch going_since_, started_;
    double seconds_held_ = 0, seconds_to_ready_ = 0;
    std::exception_ptr error_;
};

}  // namespace course
