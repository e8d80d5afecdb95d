#pragma once
#include "course/cuda_check.hpp"

namespace course {

// A pair of CUDA events around a region of the default stream. GPU only: the CPU
// emulator has no clock worth reading.
class event_timer {
public:
    event_timer() {
        CUDA_CHECK(cudaEventCreate(&start_));
        CUDA_CHECK(cudaEventCreate(&stop_));
    }
    ~event_timer() {
        (void)cudaEventDestroy(start_);
        (void)cudaEventDestroy(stop_);
    }
    event_timer(const event_timer&) = delete;
    event_timer& operator=(const event_timer&) = delete;

    void start() { CUDA_CHECK(cudaEventRecord(start_)); }
    void stop() { CUDA_CHECK(cudaEventRecord(stop_)); }
    // Waits for the stop event, then returns the time between the two in milliseconds.
    float elapsed_ms() {
        CUDA_CHECK(cudaEventSynchronize(stop_));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
        return ms;
    }

private:
    cudaEvent_t start_ = nullptr;
    cudaEvent_t stop_ = nullptr;
};

}  // namespace course
