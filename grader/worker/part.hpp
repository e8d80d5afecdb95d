#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/reduction_shape.hpp"

namespace course {

// One launch of a part: device pointers and the problem's size, as its kind reads them.
struct launch_args {
    const float* in = nullptr;
    float* out = nullptr;
    float* scratch = nullptr;     // a reduction's partial sums; null where a kind has none
    std::uint64_t n = 0;          // a count: elements, records
    unsigned rows = 0, cols = 0;  // a shape
};

// One graded kernel of a lab, as the lab binding exposes it to the worker. Pointers are
// device pointers; every function launches and returns without synchronising.
struct part {
    std::string id;      // "A", "B", ...
    std::string title;   // "sequential addressing"
    std::string kernel;  // the student's kernel name
    // Its problem kind (grader/worker/kinds/), the name of the policy's block too.
    std::string kind;
    std::string hint;  // the lab's advice when the kernel is wrong in no recognisable pattern

    // Launches, and returns without synchronising. By kind:
    //   reduction: out[0] = sum of in[0..n), using `scratch` for partial sums;
    //   record_sums: the same over n records of record_len floats; out receives one record,
    //     and scratch needs shape.scratch_elems(n) * record_len floats;
    //   transpose: out (cols x rows) = transpose of in (rows x cols), row-major.
    std::function<void(const launch_args&)> launch;
    reduction_shape shape;  // reductions: the passes' block and grid
    unsigned record_len = 1;
};

using lab_parts = std::vector<part>;

// Thrown by a part whose lab file breaks the contract in a way only a run can see (lab 4's
// launch constants out of range): the case fails with the message, as a wrong result
// would; it is not a crash.
class contract_error : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};
using parts_factory = lab_parts (*)();

}  // namespace course
