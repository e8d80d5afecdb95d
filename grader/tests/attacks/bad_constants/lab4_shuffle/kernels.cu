// Not an attack, a mistake: a launch configuration the contract does not allow (the
// block size is not a multiple of 32). Expected: both parts fail with a message naming
// the constant; the grader itself goes on.
#include "contracts/lab4.cuh"

namespace LAB_IMPL {

constexpr unsigned kShuffleBlockSize = 100;
constexpr unsigned kShuffleBlocksPerSm = 8;
constexpr unsigned kVectorBlockSize = 256;
constexpr unsigned kVectorBlocksPerSm = 0;

__global__ void reduce_shuffle(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

__global__ void reduce_vectorized(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

}  // namespace LAB_IMPL
