// A course test file: the lab 1 reference with a printf in every thread of every launch
// (tens of millions of lines at the GPU's sizes). Its output is bounded, never a timeout:
// it is graded like the reference, with a note that its output was cut.
// Lab 1 reference: the naive reduction, and the baseline every later lab is measured
// against.
#include <cstdio>

#include "contracts/lab1.cuh"

namespace LAB_IMPL {

// Interleaved addressing with a divergent branch.
//
// Why it is slow:
//  - `tid % (2 * stride) == 0` keeps only every (2*stride)-th thread busy. From the first
//    step on, the active threads are spread over every warp, so every warp still issues
//    the add while most of its lanes sit idle: a warp's 32 lanes share one instruction
//    stream, and the masked-off lanes cost as much time as the working ones.
//  - `%` on an unsigned runtime value is a long integer sequence, executed every step.
//  - Each step is followed by a full-block barrier, even when only one warp has work.
// It is correct for any n: threads past the end contribute 0 and still reach every
// __syncthreads().
__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    __shared__ float partial[lab1::block_size];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : 0.0f;
    printf("block %u thread %u loaded %f\n", blockIdx.x, tid, partial[tid]);
    __syncthreads();

    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

}  // namespace LAB_IMPL
