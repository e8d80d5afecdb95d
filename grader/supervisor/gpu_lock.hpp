#pragma once
#include <string>

namespace course {

// Several graders may share one GPU (./grade batch --graders-per-gpu K): their correctness
// runs and tools may overlap, but a timing run must have the GPU to itself, or another
// grader's kernels would be in its samples. A reader-writer lock on a file (flock): the
// correctness cases and compute-sanitizer hold it shared, the timed runs and Nsight
// Compute exclusive (each worker only from its "go": gpu_turn.hpp). Never take it twice at once in one
// process (flock would deadlock the two holds against each other). A second file,
// PATH.turnstile, is passed through by every taker and held by a waiting timer, so a
// stream of correctness runs cannot starve a timing run. One path per GPU; "" locks nothing.
class gpu_lock {
public:
    // `waited`, if given, gets the seconds spent blocked taking the lock added to it.
    explicit gpu_lock(std::string path, double* waited = nullptr) : path_(std::move(path)), waited_(waited) {}

    // Released when destroyed.
    class hold {
    public:
        hold() = default;
        explicit hold(int fd) : fd_(fd) {}
        hold(hold&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
        hold& operator=(hold&& other) noexcept;
        hold(const hold&) = delete;
        hold& operator=(const hold&) = delete;
        ~hold();

    private:
        int fd_ = -1;
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
