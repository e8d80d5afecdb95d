#pragma once
// Lab 2 contract: interleaved addressing without divergence, then sequential addressing.
// The course launches the kernels (binding.cuh, beside this file); the lab file
// defines them.
#include "contracts/lab_impl.hpp"
#include "course/cuda_compat.hpp"

namespace lab2 {
// Threads per block. The course launches every pass with this block size.
inline constexpr unsigned block_size = 256;
}  // namespace lab2

namespace LAB_IMPL {

// Both parts: block b sums in[b * blockDim.x .. b * blockDim.x + blockDim.x), treating
// elements at or past n as 0, and writes that sum to out[b]. Launched with
// gridDim.x = ceil(n / 256) blocks of 256 threads, then again on the partial sums until
// one value is left.

// Part A: interleaved addressing, but the active threads are contiguous: in step s,
// thread tid works on index 2 * s * tid.
__global__ void reduce_strided(const float* in, float* out, unsigned n);

// Part B: sequential addressing: in each step the first half of the active threads adds
// the second half of the values, and the stride halves.
__global__ void reduce_sequential(const float* in, float* out, unsigned n);

}  // namespace LAB_IMPL
