// Lab 6: double every element.
#include "contracts/lab6.cuh"

namespace LAB_IMPL {

__global__ void scale(const float* in, float* out, unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}

}  // namespace LAB_IMPL
