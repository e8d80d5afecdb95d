// Lab 1: the naive reduction. The handout is labs/lab1_divergent/README.md.
#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    // TODO(lab1): load this block's elements into shared memory and sum them with
    //             interleaved addressing (the handout's "What you implement").
    // TODO(lab1): thread 0 writes the block's sum to out[blockIdx.x].
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

}  // namespace LAB_IMPL
