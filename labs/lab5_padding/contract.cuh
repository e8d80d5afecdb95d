#pragma once
// Lab 5 contract: padded 2D shared arrays. The course launches the kernels
// (binding.cuh, beside this file); the lab file defines them. The unpadded versions,
// which are this lab's baseline, are in common/baselines/lab5_unpadded.cu.
#include <cstddef>

#include "contracts/lab_impl.hpp"
#include "course/cuda_compat.hpp"

namespace lab5 {
// Part A: threads per block, and floats per record (one record per thread).
inline constexpr unsigned block_size = 256;
inline constexpr unsigned record_len = 8;
// Part B: tile edge, and rows of threads per block (blocks are tile x tile_rows threads).
inline constexpr unsigned tile = 32;
inline constexpr unsigned tile_rows = 4;
}  // namespace lab5

namespace LAB_IMPL {

// Part A: component sums of records. `in` holds n records of 8 floats, record i at
// in[8 * i .. 8 * i + 7]. Block b stages its 256 records in a __shared__ 2D array, one row
// per thread (the load is cooperative and coalesced, so a thread writes other threads'
// rows), then sums the rows component by component with sequential addressing and writes
// the 8 sums to out[8 * b .. 8 * b + 7]. Records at or past n count as 0. Launched with
// ceil(n / 256) blocks of 256 threads, then again on the partial records until one is left.
__global__ void record_sums(const float* in, float* out, unsigned n);

// Part B: transpose through a shared tile. `in` is rows x cols, row-major; out (cols x rows)
// receives out[c * rows + r] = in[r * cols + c]. Blocks walk the output row-major, the way a
// copy does: block (bx, by) writes the 32 x 32 output tile whose top-left element is
// out[32 * by][32 * bx], so it reads the input tile at row 32 * bx, column 32 * by. Each
// block has 32 x 4 threads, each handling 8 elements. Launched with
// ceil(rows / 32) x ceil(cols / 32) blocks; the matrix sides need not be multiples of 32.
__global__ void transpose_tiled(const float* in, float* out, unsigned rows, unsigned cols);

}  // namespace LAB_IMPL
