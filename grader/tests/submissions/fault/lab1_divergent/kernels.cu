// Test submission: a kernel that writes far outside its output buffer.
#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x + (1u << 28)] = in[0] + static_cast<float>(n);
}

}  // namespace LAB_IMPL
