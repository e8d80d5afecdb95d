// Lab 3: the first add during the load, an unrolled last warp, a fully unrolled tree.
// The handout is labs/lab3_unrolled/README.md.
#include "contracts/lab3.cuh"

namespace LAB_IMPL {

__global__ void reduce_first_add(const float* in, float* out, unsigned n) {
    // TODO(lab3): part A. Each block covers 2 * blockDim.x elements: add two while loading,
    //             then reduce with sequential addressing.
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

__global__ void reduce_warp_unrolled(const float* in, float* out, unsigned n) {
    // TODO(lab3): part B. Part A, with the steps of the last warp unrolled and kept
    //             correct with __syncwarp() (not a volatile pointer).
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

template <unsigned BlockSize>
__global__ void reduce_full_unroll(const float* in, float* out, unsigned n) {
    // TODO(lab3): part C. Unroll every step; BlockSize is known at compile time.
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

}  // namespace LAB_IMPL
