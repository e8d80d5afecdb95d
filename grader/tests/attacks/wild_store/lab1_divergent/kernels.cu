// Attack: a store far outside every buffer the kernel was given (on the emulator, into the
// host process's own memory, where the grader's state could be). Expected: the kernel is
// stopped with an out-of-bounds message on the emulator, and faults on a GPU; never a pass.
#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) {
        float* far = out - (1u << 22);
        far[n] = 1.0f;
        out[blockIdx.x] = 0.0f;
    }
}

}  // namespace LAB_IMPL
