#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/inputs.hpp"
#include "core/result.hpp"
#include "worker/guarded_buffer.hpp"
#include "worker/part.hpp"

namespace course {

// Device buffers for one reduction run: the input (followed by NaN guard words, so a
// read past the end shows up as a NaN sum), the output and the scratch for partial sums,
// each followed by guard words. `width` floats per element: 1 for plain sums, 8 for
// lab 5's records.
struct reduction_buffers {
    reduction_buffers(std::size_t n, std::size_t scratch_elems, unsigned width = 1);
    unsigned width;
    guarded_buffer in;
    guarded_buffer out;
    guarded_buffer scratch;
};

// Reads the result the last run left in `bufs` and judges every component against the
// double-precision sums of `host_input` (n elements of bufs.width floats).
case_record judge_reduction(const std::string& part_id, reduction_buffers& bufs, const float* host_input,
                            std::size_t n, input_kind kind, double tolerance_c);

// Poisons the outputs, runs the part once on the uploaded input and judges the result.
case_record check_reduction(const part& p, reduction_buffers& bufs, const float* host_input, std::size_t n,
                            input_kind kind, double tolerance_c);

// Uploads a fresh input of `kind` for (seed, n) and checks one run.
case_record run_reduction_case(const part& p, input_kind kind, std::size_t n, std::uint64_t run_seed,
                               double tolerance_c);

}  // namespace course
