// Test submission: lab 4 with cooperative groups' reduce, a library reduction, in both
// parts. The sums are right, so only no_libraries catches it: every part must lose its
// points, on the GPU and on the CPU emulator, which compiles and runs the same code with
// its own <cooperative_groups/reduce.h>. Comments do not count (this one names cg::reduce
// and <cub/cub.cuh>).
#include "contracts/lab4.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

namespace LAB_IMPL {

// The launch configuration is yours to choose (the handout says how).
constexpr unsigned kShuffleBlockSize = 256;
constexpr unsigned kShuffleBlocksPerSm = 8;
constexpr unsigned kVectorBlockSize = 256;
constexpr unsigned kVectorBlocksPerSm = 8;

namespace {

__device__ __forceinline__ float warp_total(float v) {
    const auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    return cg::reduce(warp, v, cg::plus<float>());
}

__device__ __forceinline__ void block_total_to(float v, float* dst) {
    __shared__ float warp_sums[32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_total(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_total(lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f);
        if (lane == 0) *dst = v;
    }
}

}  // namespace

__global__ void reduce_shuffle(const float* in, float* out, unsigned n) {
    float v = 0.0f;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
    block_total_to(v, &out[blockIdx.x]);
}

__global__ void reduce_vectorized(const float* in, float* out, unsigned n) {
    const float4* in4 = reinterpret_cast<const float4*>(in);
    const unsigned stride = blockDim.x * gridDim.x;
    const unsigned first = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    for (unsigned i = first; i < n / 4; i += stride) {
        const float4 q = in4[i];
        v += (q.x + q.y) + (q.z + q.w);
    }
    for (unsigned j = 4 * (n / 4) + first; j < n; j += stride) v += in[j];
    block_total_to(v, &out[blockIdx.x]);
}

}  // namespace LAB_IMPL
