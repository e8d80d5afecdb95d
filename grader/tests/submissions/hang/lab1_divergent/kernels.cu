// Test submission: a kernel that never finishes.
#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    // Re-reads a value no thread ever changes: the loop cannot end, and the volatile reads
    // keep the compiler from removing it.
    const volatile float* v = in;
    while (v[0] == v[0]) {
    }
    if (threadIdx.x == 0) out[blockIdx.x] = in[0] + static_cast<float>(n);
}

}  // namespace LAB_IMPL
