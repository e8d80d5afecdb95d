#pragma once
#include <string>

namespace course {

// Several graders may share one GPU (./grade batch --graders-per-gpu K): their correctness
// runs and tools may overlap, but a timing run must have the GPU to itself, or another
// grader's kernels would be in its samples. A reader-writer lock on a file (flock): the
// correctness cases and compute-sanitizer hold it shared, the timed runs and Nsight
// Compute exclusive (each worker only from its "go": gpu_turn.hpp). One process may hold it
// shared twice at once (a grading's racecheck beside its correctness cases: each hold is a
// file of its own), but never exclusive beside another hold of its own, which flock would
// deadlock against it. A second file,
// PATH.timers, is held shared by every timer from the moment it asks until it lets go, and
// passed exclusive by every correctness run: timers go before new correctness runs, one
// after another, so the GPU is drained of correctness runs once for every timer waiting
// rather than once per timer (gpu_lock.cpp). One path per GPU; "" locks nothing.
class gpu_lock {
public:
    // `waited`, if given, gets the seconds spent blocked taking the lock added to it.
    explicit gpu_lock(std::string path, double* waited = nullptr) : path_(std::move(path)), waited_(waited) {}

    // Released when destroyed.
    class hold {
    public:
        hold() = default;
        explicit hold(int fd, int timers_fd = -1) : fd_(fd), timers_fd_(timers_fd) {}
        hold(hold&& other) noexcept : fd_(other.fd_), timers_fd_(other.timers_fd_) { other.fd_ = other.timers_fd_ = -1; }
        hold& operator=(hold&& other) noexcept;
        hold(const hold&) = delete;
        hold& operator=(const hold&) = delete;
        ~hold();

    private:
        void release();
        int fd_ = -1;
        int timers_fd_ = -1;  // a timer's claim on PATH.timers
    };

    // Block until held; throw std::runtime_error when the file cannot be opened or locked.
    hold shared() const;
    hold exclusive() const;

private:
    hold take(bool exclusive) const;
    std::string path_;
    double* waited_ = nullptr;
};

}  // namespace course
