#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "course/reduction_shape.hpp"

namespace course {

enum class part_kind { reduction, transpose, aos_to_soa };
const char* to_string(part_kind k);

// One graded kernel of a lab, as the lab binding exposes it to the worker. Pointers are
// device pointers; every function launches and returns without synchronising.
struct part {
    std::string id;      // "A", "B", ...
    std::string title;   // "sequential addressing"
    std::string kernel;  // the student's kernel name
    part_kind kind = part_kind::reduction;

    // reduction: out[0] = sum of in[0..n), using `scratch` for partial sums
    reduction_shape shape;
    std::function<void(const float* in, float* out, std::size_t n, float* scratch)> reduce;

    // transpose: out (cols x rows) = transpose of in (rows x cols), row-major
    std::function<void(const float* in, float* out, unsigned rows, unsigned cols)> transpose;

    // aos_to_soa: in holds `records` records of record_len floats; out[j * records + i]
    // receives component j of record i
    unsigned record_len = 0;
    std::function<void(const float* in, float* out, std::size_t records)> aos_to_soa;
};

using lab_parts = std::vector<part>;
using parts_factory = lab_parts (*)();

}  // namespace course
