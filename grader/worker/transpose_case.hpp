#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "inputs/input_cache.hpp"
#include "inputs/inputs.hpp"
#include "core/result.hpp"
#include "worker/guarded_buffer.hpp"
#include "worker/part.hpp"

namespace course {

// Device buffers of one transpose: the input (rows x cols) and the output (cols x rows),
// each followed by guard words.
struct transpose_buffers {
    transpose_buffers(unsigned rows, unsigned cols);
    unsigned rows, cols;
    guarded_buffer in;
    guarded_buffer out;
};

// Compares every output element with the input it must come from (exactly: a transpose
// moves data, it does not round) and names the first wrong one.
case_record judge_transpose(const std::string& part_id, transpose_buffers& bufs, const host_floats& host_in,
                            input_kind kind);

// Judges only some output elements, without copying the whole output back: the
// transposed places of the input elements `input_indices` (linear, row-major) and the
// whole output rows `out_rows` (output row c holds input column c). The check after every
// timed run, where the output is 256 MiB.
case_record judge_transpose_sample(const std::string& part_id, transpose_buffers& bufs,
                                   const host_floats& host_in, const std::vector<std::size_t>& input_indices,
                                   const std::vector<std::size_t>& out_rows);

// Launches the part on the buffers; does not synchronise.
void run_transpose(const part& p, transpose_buffers& bufs);

// The seed of the input of `kind` for a case of this shape.
std::uint64_t transpose_case_seed(std::uint64_t run_seed, input_kind kind, unsigned rows, unsigned cols);

// Uploads the input of `kind` for (seed, shape) from `inputs`, poisons the output, runs
// and judges.
case_record run_transpose_case(const part& p, input_kind kind, unsigned rows, unsigned cols, std::uint64_t run_seed,
                               input_cache& inputs);

}  // namespace course
