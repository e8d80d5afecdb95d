// Independently written test submission for the grader's tests (not a course solution).
// Part A: naive interleaved-addressing tree with the divergent `tid % (2 * stride)` branch.
#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    __shared__ float partial[lab1::block_size];

    const unsigned lane = threadIdx.x;
    const unsigned src = blockIdx.x * blockDim.x + lane;
    partial[lane] = (src < n) ? in[src] : 0.0f;
    __syncthreads();

    // Pairs twice as far apart each round; only threads whose id is a multiple of
    // 2 * gap do work, so every warp stays partly idle (the divergence this lab shows).
    for (unsigned gap = 1; gap < blockDim.x; gap <<= 1) {
        if (lane % (2u * gap) == 0u) {
            partial[lane] += partial[lane + gap];
        }
        __syncthreads();
    }

    if (lane == 0u) out[blockIdx.x] = partial[0];
}

}  // namespace LAB_IMPL
