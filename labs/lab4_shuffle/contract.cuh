#pragma once
// Lab 4 contract: warp shuffles and a grid-stride loop, then loads wide enough to reach
// the bandwidth roof. The course launches the kernels (binding.cuh, beside this file)
// with the launch configuration the lab file chooses through four constants, which the
// lab file defines as `constexpr unsigned kShuffleBlockSize = 256;` and so on.
#include "contracts/lab_impl.hpp"
#include "course/cuda_compat.hpp"

namespace LAB_IMPL {

// The launch configuration. The course reads these from the lab file's object (the
// binding is another translation unit), so they are declared here and defined there.
extern const unsigned kShuffleBlockSize;   // part A: threads per block (32..1024, a multiple of 32)
extern const unsigned kShuffleBlocksPerSm;  // part A: blocks per SM (1..64)
extern const unsigned kVectorBlockSize;    // part B: threads per block
extern const unsigned kVectorBlocksPerSm;   // part B: blocks per SM

// Both parts: a grid-stride reduction. The course launches
// min(SMs * blocks-per-SM, ceil(n / elements-per-block)) blocks of the chosen size; block
// b sums its share of in[0..n) (block b, b + gridDim.x, ... of every sweep) and writes it
// to out[b]. The course then launches the same kernel with one block on those partial
// sums. `in` is 16-byte aligned; n can be any value, including 1 and odd numbers.

// Part A: each thread accumulates many elements with a grid-stride loop; the block
// combines them with warp shuffles (__shfl_down_sync or __shfl_xor_sync).
__global__ void reduce_shuffle(const float* in, float* out, unsigned n);

// Part B: part A with 16-byte loads (float4) and several loads in flight per thread.
__global__ void reduce_vectorized(const float* in, float* out, unsigned n);

}  // namespace LAB_IMPL
