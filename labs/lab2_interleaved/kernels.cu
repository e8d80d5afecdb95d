// Lab 2: interleaved addressing without divergence, then sequential addressing.
// The handout is labs/lab2_interleaved/README.md.
#include "contracts/lab2.cuh"

namespace LAB_IMPL {

__global__ void reduce_strided(const float* in, float* out, unsigned n) {
    // TODO(lab2): part A. Load as in lab 1, then in each step let thread tid add into
    //             index 2 * stride * tid (the handout's "Part A").
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

__global__ void reduce_sequential(const float* in, float* out, unsigned n) {
    // TODO(lab2): part B. Sequential addressing: the stride starts at blockDim.x / 2 and
    //             halves each step (the handout's "Part B").
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

}  // namespace LAB_IMPL
