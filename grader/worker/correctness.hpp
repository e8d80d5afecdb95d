#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/protocol.hpp"
#include "inputs/inputs.hpp"
#include "worker/part.hpp"

namespace course {

struct correctness_job {
    const part* target = nullptr;
    std::map<std::string, kind_cases> problems;  // by problem kind
    std::vector<input_kind> inputs;              // reduction inputs
    std::uint64_t seed = 0;
    double tolerance_c = 0;
    // The reduction cases make their inputs on the device (worker/input_maker.hpp) rather
    // than upload them from the worker's input cache.
    bool inputs_on_device = false;
    // The emulator: called after every case, whatever its end, with its input kind and
    // size words, to read what the case's launches did (worker/counters.hpp).
    std::function<void(const std::string& input, const std::string& size)> after_case;
    std::function<void(const std::string& input, const std::string& size)> before_case;
};

struct correctness_summary {
    int cases = 0;
    int failed = 0;
    bool passed = false;  // doctest's verdict over every assertion of the part
    bool sticky = false;  // a sticky CUDA error ended the run: the context is unusable
    bool hung = false;    // a case was stopped by the emulator's watchdog (it would hang again)
};

// Makes on the host every input the cases of these parts will draw (the worker's input
// cache), so that the cases themselves only upload and run: the worker does this before
// it asks for the GPU.
void prepare_correctness_inputs(const correctness_job& job, const std::vector<const part*>& parts);

// Runs the part's cases (its problem kind's, in a doctest test case) and emits a
// case_begin / case_end event around every case. std::invalid_argument when the job has no
// cases for the part's kind, or the worker no such kind.
correctness_summary run_correctness(const correctness_job& job);

}  // namespace course
