// Test submission: a kernel that never finishes.
#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    volatile unsigned spin = n + 1;
    while (spin != 0) spin = spin + 1 == 0 ? 1 : spin + 1;
    if (threadIdx.x == 0) out[blockIdx.x] = in[0];
}

}  // namespace LAB_IMPL
