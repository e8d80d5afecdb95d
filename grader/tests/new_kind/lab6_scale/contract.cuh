#pragma once
// Lab 6 contract: out[i] = 2 * in[i]. The course launches the kernel (binding.cuh).
#include "contracts/lab_impl.hpp"
#include "course/cuda_compat.hpp"

namespace lab6 {
inline constexpr unsigned block_size = 256;  // threads per block
}  // namespace lab6

namespace LAB_IMPL {

// Thread blockIdx.x * blockDim.x + threadIdx.x writes out[i] = 2 * in[i] for i < n.
__global__ void scale(const float* in, float* out, unsigned n);

}  // namespace LAB_IMPL
