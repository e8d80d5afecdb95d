#pragma once
#include <exception>
#include <string>

#include <nlohmann/json.hpp>

#include "core/stopwatch.hpp"
#include "supervisor/gpu_lock.hpp"

namespace course {

// A timing worker makes its inputs and buffers while the GPU is shared with other
// graders' correctness runs, says it is ready (timing_ready_event), and runs no kernel
// before it is told "go": the supervisor first takes the GPU to itself. Until that answer
// no code of the student's has run in the worker (the course's rules allow a lab file no
// code that runs by itself). One answer per worker: a second "ready", which the student's
// code could write, gets none, so the GPU is never let go while the student's code runs.
class gpu_turn {
public:
    explicit gpu_turn(gpu_lock lock) : lock_(std::move(lock)) {}

    // Before each timing worker starts: the GPU shared.
    void worker_starts();
    // The reply to a worker's event (worker_reply): "go\n" to its first timing_ready
    // once the GPU is ours alone, "stop\n" if it cannot be taken, "" otherwise.
    std::string answer(const nlohmann::json& event);
    // After the phase: lets the GPU go, and rethrows a failure to take it.
    void finish();

    double seconds_alone() const { return seconds_alone_; }

private:
    void release();

    gpu_lock lock_;
    gpu_lock::hold held_;
    bool answered_ = false, alone_ = false;
    stopwatch alone_since_;
    double seconds_alone_ = 0;
    std::exception_ptr error_;
};

}  // namespace course
