#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "worker/device_info.hpp"
#include "worker/part.hpp"
#include "core/problem_size.hpp"
#include "worker/problem.hpp"

namespace course {

// One timed part: the naive baseline, this lab's reference and the student's version.
struct timed_part {
    const part* versions[3] = {nullptr, nullptr, nullptr};  // naive, reference, student
};

struct timing_job {
    std::string lab;
    std::vector<timed_part> parts;
    std::map<std::string, problem_size> sizes;  // the timed problem, by problem kind
    int rounds = 0;
    int warmup = 0;
    std::size_t flush_bytes = 0;
    std::uint64_t seed = 0;
    double tolerance_c = 0;
};

// GPU only. Makes every part's inputs on the host, emits "timing_ready" and waits for
// "go" on stdin (the supervisor takes the GPU to itself first); then makes each part's
// buffers, uploads its input and times every part in
// interleaved rounds through Google Benchmark with manual CUDA-event time and emits one
// "timing" event per part with the raw samples; the supervisor does the statistics and
// the verdict.
void run_timing(const timing_job& job, const device_info& device);

}  // namespace course
