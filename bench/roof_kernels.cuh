#pragma once
// Kernels that are not a lab's: the bandwidth roof, the naive transpose and CUB.
#include <cstddef>

namespace bench {

// Reads n floats as float4 and does nothing with them that the compiler can drop: the
// fastest a kernel can stream the input, the roof for a reduction.
void read_only(const float* in, std::size_t n, float* sink);

// out (cols x rows) = transpose of in (rows x cols) with no shared memory: coalesced
// reads, writes strided by `rows` floats.
void transpose_naive(const float* in, float* out, unsigned rows, unsigned cols);

// Lab 5 B's padded transpose with its blocks in the other order: block (bx, by) reads the
// input tile at row 32 * by, column 32 * bx, so the blocks walk the input row-major and
// scatter their writes. The figure that explains the course's block order.
void transpose_padded_input_order(const float* in, float* out, unsigned rows, unsigned cols);

// cub::DeviceReduce::Sum, the production reference. temp_bytes() for n first.
std::size_t cub_sum_temp_bytes(std::size_t n);
void cub_sum(const float* in, float* out, std::size_t n, void* temp, std::size_t temp_bytes);

}  // namespace bench
