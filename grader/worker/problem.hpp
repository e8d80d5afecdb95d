#pragma once
#include <cstdint>
#include <string>

#include "inputs/host_floats.hpp"
#include "inputs/perturbation.hpp"
#include "core/result.hpp"
#include "worker/part.hpp"

namespace course {

// One timed problem instance: inputs on the device, and the outputs every version of
// the part writes to. The timing loop runs the naive, reference and student versions
// on the same instance, calling prepare_run() before each run.
class problem {
public:
    virtual ~problem() = default;
    virtual std::string label() const = 0;  // "n=33554432"
    virtual double bytes() const = 0;       // the fewest bytes the kernel must move
    // Before every run, outside the timed region: rewrites a few input elements (the
    // expected result follows) and poisons the outputs, so that no run sees the input of
    // an earlier one or finds an earlier run's result in the buffers.
    virtual void prepare_run() = 0;
    virtual void run(const part& p) = 0;  // launches, does not synchronise
    // After a run, cheaply: reads back a little of the outputs and judges it against the
    // current input (reductions: the result; transposes: the changed elements and a few
    // whole output rows, chosen now).
    virtual case_record check_run(const part& p) = 0;
    // Checks all that the last run left in the outputs against the current input.
    virtual case_record check_last(const part& p) = 0;
    // Puts the problem's fresh input (problem_inputs) in place, runs once and checks: a kernel
    // that caches results across calls, or only works the first time, fails here.
    virtual case_record rerun_fresh(const part& p) = 0;
};

// One input of a problem on the host, with its exact sums (reductions; none for a matrix),
// or only its seed where on_device: the problem makes it on the device when it is made.
struct host_input {
    std::uint64_t seed = 0;
    host_floats values;
    component_sums sums;
    bool on_device = false;
};

// A problem's inputs, made on the host before it exists (no GPU needed) or named there to
// be made on the device with it: the one it starts with, and the fresh one of rerun_fresh()
// (empty when there will be none). The timing worker makes them before it has the GPU to
// itself. A problem is made by its
// kind (worker/problem_kind.hpp).
struct problem_inputs {
    host_input first, fresh;
};

}  // namespace course
