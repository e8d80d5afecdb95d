// Lab 4: warp shuffles and a grid-stride loop, then loads that reach the bandwidth roof.
// The handout is labs/lab4_shuffle/README.md.
#include "contracts/lab4.cuh"

namespace LAB_IMPL {

// The launch configuration is yours to choose (the handout says how).
constexpr unsigned kShuffleBlockSize = 256;
constexpr unsigned kShuffleBlocksPerSm = 8;
constexpr unsigned kVectorBlockSize = 256;
constexpr unsigned kVectorBlocksPerSm = 8;

__global__ void reduce_shuffle(const float* in, float* out, unsigned n) {
    // TODO(lab4): part A. Accumulate with a grid-stride loop, then sum each warp with
    //             __shfl_down_sync and combine the warps' sums.
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

__global__ void reduce_vectorized(const float* in, float* out, unsigned n) {
    // TODO(lab4): part B. Part A with float4 loads, several in flight per thread; do not
    //             forget the n % 4 elements at the end.
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

}  // namespace LAB_IMPL
