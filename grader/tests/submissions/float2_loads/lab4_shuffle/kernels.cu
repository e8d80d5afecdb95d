// Test submission: lab 4 whose part B loads 8 bytes at a time (float2) instead of the
// reference's float4: written unlike the reference, and wide enough. It must pass
// wide_loads on the emulator (8 sectors per request against the reference's 16).
#include "contracts/lab4.cuh"

namespace LAB_IMPL {

// Part A: a grid of a few blocks per SM that stays resident; part B: big blocks, four
// per SM, so each thread keeps several 16-byte loads in flight (measured on an H200:
// docs/results.md).
constexpr unsigned kShuffleBlockSize = 256;
constexpr unsigned kShuffleBlocksPerSm = 8;
constexpr unsigned kVectorBlockSize = 1024;
constexpr unsigned kVectorBlocksPerSm = 4;

namespace {

// A warp's 32 values summed in registers: each step, every lane adds the value of the lane
// `offset` above it. No shared memory, no barrier: the shuffle moves the data and
// synchronises the lanes of the mask.
__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// Each warp sums its lanes; lane 0 of every warp leaves its sum in shared memory; warp 0
// sums those. One __syncthreads() for the whole block.
__device__ __forceinline__ float block_sum(float v) {
    __shared__ __align__(16) float warp_sums[32];  // CUDA's alignment specifier, as NVIDIA's samples write it
    const unsigned lane = threadIdx.x % 32;
    const unsigned warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (blockDim.x + 31) / 32 ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
    }
    return v;
}

}  // namespace

// Part A: grid-stride loop and warp shuffles.
//
// Why it is faster: the grid no longer grows with n. A few blocks per SM stay resident and
// each thread sums many elements in a register with a grid-stride loop (consecutive
// threads read consecutive elements, so every sweep is coalesced). The tree then runs
// once per block instead of once per 512 elements, and its warp-level steps use
// shuffles: registers only, no shared-memory traffic, no bank conflicts.
__global__ void reduce_shuffle(const float* in, float* out, unsigned n) {
    float v = 0.0f;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
    v = block_sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Part B with 8-byte loads, two accumulators.
__global__ void reduce_vectorized(const float* in, float* out, unsigned n) {
    const float2* in2 = reinterpret_cast<const float2*>(in);
    const unsigned n2 = n / 2;
    const unsigned stride = blockDim.x * gridDim.x;
    float2 acc = make_float2(0.0f, 0.0f);
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += stride) {
        const float2 q = in2[i];
        acc.x += q.x;
        acc.y += q.y;
    }
    // The odd element past the last float2, added once.
    if ((n & 1u) && blockIdx.x == 0 && threadIdx.x == 0) acc.x += in[n - 1];
    const float v = block_sum(acc.x + acc.y);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

}  // namespace LAB_IMPL
