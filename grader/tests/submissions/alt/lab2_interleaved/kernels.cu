// Independently written test submission for the grader's tests (not a course solution).
// Part A: interleaved addressing with the strided index 2*stride*tid; part B: sequential addressing.
#include "contracts/lab2.cuh"

namespace LAB_IMPL {

namespace {

// Copies this block's slice of `in` into `buf`, padding past n with zeros.
__device__ __forceinline__ void stage_block(float* buf, const float* in, unsigned n) {
    const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    if (g < n) v = in[g];
    buf[threadIdx.x] = v;
}

}  // namespace

__global__ void reduce_strided(const float* in, float* out, unsigned n) {
    __shared__ float acc[lab2::block_size];
    const unsigned t = threadIdx.x;
    stage_block(acc, in, n);
    __syncthreads();

    // The busy threads are the low-numbered ones; thread t owns slot 2*step*t.
    unsigned step = 1;
    while (step < blockDim.x) {
        const unsigned dst = 2u * step * t;
        if (dst < blockDim.x) {
            acc[dst] += acc[dst + step];
        }
        __syncthreads();
        step *= 2u;
    }

    if (t == 0u) out[blockIdx.x] = acc[0];
}

__global__ void reduce_sequential(const float* in, float* out, unsigned n) {
    __shared__ float acc[lab2::block_size];
    const unsigned t = threadIdx.x;
    stage_block(acc, in, n);
    __syncthreads();

    // Fold the upper half of the live range onto the lower half until one value is left.
    for (unsigned half = blockDim.x >> 1; half != 0u; half >>= 1) {
        if (t < half) {
            acc[t] += acc[t + half];
        }
        __syncthreads();
    }

    if (t == 0u) out[blockIdx.x] = acc[0];
}

}  // namespace LAB_IMPL
