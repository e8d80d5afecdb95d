#pragma once
#include <chrono>

namespace course {

// Wall-clock seconds since it was made (or restarted).
class stopwatch {
public:
    stopwatch() : start_(std::chrono::steady_clock::now()) {}
    double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
    void restart() { start_ = std::chrono::steady_clock::now(); }

private:
    std::chrono::steady_clock::time_point start_;
};

}  // namespace course
