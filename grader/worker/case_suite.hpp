#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "core/result.hpp"
#include "inputs/input_cache.hpp"
#include "worker/correctness.hpp"

namespace course {

// What a problem kind's correctness cases run in (worker/problem_kind.hpp): the job (seed,
// tolerance, input kinds), the worker's input cache, and run(), which every case goes
// through.
class case_suite {
public:
    case_suite(const correctness_job& job, input_cache& inputs) : job_(job), inputs_(inputs) {}
    const correctness_job& job() const { return job_; }
    input_cache& inputs() { return inputs_; }
    // Reports the case before it runs, so that a crash or hang can be pinned on it, then
    // runs `body` and turns any exception into a failed case with the exception's text.
    // `size` is the case's size word (problem_size::word()), `n` its input elements: a
    // case that threw has no record of its own, and the hints read the sizes of every
    // failure, faults included. After a sticky error or a hang, it ends the part's cases.
    void run(const std::string& input, const std::string& size, std::uint64_t n,
             const std::function<case_record()>& body);

private:
    const correctness_job& job_;
    input_cache& inputs_;
};

}  // namespace course
