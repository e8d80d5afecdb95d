#pragma once
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/reduction_shape.hpp"

namespace course {

enum class part_kind { reduction, record_sums, transpose };
const char* to_string(part_kind k);

// One graded kernel of a lab, as the lab binding exposes it to the worker. Pointers are
// device pointers; every function launches and returns without synchronising.
struct part {
    std::string id;      // "A", "B", ...
    std::string title;   // "sequential addressing"
    std::string kernel;  // the student's kernel name
    part_kind kind = part_kind::reduction;
    std::string hint;  // the lab's advice when the kernel is wrong in no recognisable pattern

    // reduction: out[0] = sum of in[0..n), using `scratch` for partial sums.
    // record_sums: the same over n records of record_len floats; out receives one record,
    // and scratch needs shape.scratch_elems(n) * record_len floats.
    reduction_shape shape;
    unsigned record_len = 1;
    std::function<void(const float* in, float* out, std::size_t n, float* scratch)> reduce;

    // transpose: out (cols x rows) = transpose of in (rows x cols), row-major
    std::function<void(const float* in, float* out, unsigned rows, unsigned cols)> transpose;
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
