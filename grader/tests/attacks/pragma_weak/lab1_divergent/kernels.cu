// Attack: a pragma that makes the file's symbol stand in for another. Expected: refused
// (a pragma other than unroll).
#include "contracts/lab1.cuh"

#pragma weak course_hijacked_symbol

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

}  // namespace LAB_IMPL
