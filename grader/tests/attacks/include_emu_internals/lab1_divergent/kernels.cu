// Attack: include the emulator's internals (the running block's state, the scheduler's
// hooks), to reach what the emulator counts and checks from kernel code. Expected:
// refused before compiling on every backend.
#include "contracts/lab1.cuh"
#include "emu/block_state.hpp"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

}  // namespace LAB_IMPL
