// Test submission (adversarial): lab 2 that uses each part's technique only when n is
// 65536, the size the emulator's counters used to be taken at, and lab 1's divergent
// tree at every other size. Right answers; no_divergence must fail both parts, whatever
// problems the grade draws.
#include "contracts/lab2.cuh"

namespace LAB_IMPL {

namespace {

__device__ void divergent_tree(float* partial, unsigned tid) {
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
}

}  // namespace

__global__ void reduce_strided(const float* in, float* out, unsigned n) {
    __shared__ float partial[lab2::block_size];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (n == 65536) {
        for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
            const unsigned index = 2 * stride * tid;
            if (index < blockDim.x) partial[index] += partial[index + stride];
            __syncthreads();
        }
    } else {
        divergent_tree(partial, tid);
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

__global__ void reduce_sequential(const float* in, float* out, unsigned n) {
    __shared__ float partial[lab2::block_size];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (n == 65536) {
        for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
            if (tid < stride) partial[tid] += partial[tid + stride];
            __syncthreads();
        }
    } else {
        divergent_tree(partial, tid);
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

}  // namespace LAB_IMPL
