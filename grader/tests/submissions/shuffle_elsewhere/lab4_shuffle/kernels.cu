// Test submission: lab 4 whose part A sums with a shared-memory tree and no shuffle,
// while a draft kernel that the course never launches, and the device function it calls,
// are full of shuffles. Both parts give right sums. uses_shuffle must fail part A on
// every backend: the SASS search follows reduce_shuffle's own calls only, and the
// emulator counts the shuffles reduce_shuffle executes. Part B is a proper shuffle kernel.
#include "contracts/lab4.cuh"

namespace LAB_IMPL {

// The launch configuration is yours to choose (the handout says how).
constexpr unsigned kShuffleBlockSize = 256;
constexpr unsigned kShuffleBlocksPerSm = 8;
constexpr unsigned kVectorBlockSize = 256;
constexpr unsigned kVectorBlocksPerSm = 8;

namespace {

// Kept out of line, so that on a GPU it is a call the SASS search must follow (or not).
// __attribute__((noinline)) is what __noinline__ means to nvcc; the emulator's header has
// no __noinline__.
__device__ __attribute__((noinline)) float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// Lab 3's tree, in shared memory only, with __syncthreads() between all its steps.
__device__ __forceinline__ float block_sum_shared(float v) {
    __shared__ float partial[1024];
    const unsigned t = threadIdx.x;
    partial[t] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    return partial[0];
}

}  // namespace

// Part A: a grid-stride loop, then a shared-memory tree: right, but no shuffle.
__global__ void reduce_shuffle(const float* in, float* out, unsigned n) {
    float v = 0.0f;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
    v = block_sum_shared(v);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// A draft the student left in the file: the course never launches it.
__global__ void reduce_shuffle_draft(const float* in, float* out, unsigned n) {
    float v = 0.0f;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
    v = warp_sum(v);
    if (threadIdx.x % 32 == 0) atomicAdd(&out[blockIdx.x], v);
}

// Part B: float4 loads, then shuffles inside each warp and across the warps' sums.
__global__ void reduce_vectorized(const float* in, float* out, unsigned n) {
    __shared__ float warp_sums[32];
    const float4* in4 = reinterpret_cast<const float4*>(in);
    const unsigned stride = blockDim.x * gridDim.x;
    const unsigned first = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    for (unsigned i = first; i < n / 4; i += stride) {
        const float4 q = in4[i];
        v += (q.x + q.y) + (q.z + q.w);
    }
    for (unsigned j = 4 * (n / 4) + first; j < n; j += stride) v += in[j];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
        if (lane == 0) out[blockIdx.x] = v;
    }
}

}  // namespace LAB_IMPL
