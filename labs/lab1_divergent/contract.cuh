#pragma once
// Lab 1 contract: the naive reduction. The course launches the kernel (its
// binding.cuh, beside this file); the lab file defines it.
#include "contracts/lab_impl.hpp"
#include "course/cuda_compat.hpp"

namespace lab1 {
// Threads per block. The course launches every pass with this block size.
inline constexpr unsigned block_size = 256;
}  // namespace lab1

namespace LAB_IMPL {

// Block b sums in[b * blockDim.x .. b * blockDim.x + blockDim.x), treating elements at or
// past n as 0, and writes that sum to out[b]. Launched with gridDim.x = ceil(n / 256)
// blocks of 256 threads, then again on the partial sums until one value is left.
__global__ void reduce_divergent(const float* in, float* out, unsigned n);

}  // namespace LAB_IMPL
