// Test submission: lab 4 with the grid-stride loops but a shared-memory tree instead of
// warp shuffles. Right answers; uses_shuffle and, on the emulator, no_shared_tree fail.
#include "contracts/lab4.cuh"

namespace LAB_IMPL {

constexpr unsigned kShuffleBlockSize = 256;
constexpr unsigned kShuffleBlocksPerSm = 8;
constexpr unsigned kVectorBlockSize = 256;
constexpr unsigned kVectorBlocksPerSm = 8;

__device__ float tree_sum(float v) {
    __shared__ float partial[1024];
    const unsigned tid = threadIdx.x;
    partial[tid] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    return partial[0];
}

__global__ void reduce_shuffle(const float* in, float* out, unsigned n) {
    float v = 0.0f;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
    v = tree_sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

__global__ void reduce_vectorized(const float* in, float* out, unsigned n) {
    const float4* in4 = reinterpret_cast<const float4*>(in);
    const unsigned n4 = n / 4;
    const unsigned stride = blockDim.x * gridDim.x;
    float v = 0.0f;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        const float4 q = in4[i];
        v += (q.x + q.y) + (q.z + q.w);
    }
    for (unsigned j = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) v += in[j];
    v = tree_sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

}  // namespace LAB_IMPL
