// Attack: a compiler built-in that stores without the emulator's instrumentation seeing it
// (x86's non-temporal store), aimed far outside the kernel's buffers. Expected: refused on
// every backend (no built-in that reaches memory); nvcc has no such built-in in device code.
#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) {
        __builtin_ia32_movnti(reinterpret_cast<int*>(out - (1u << 22)), static_cast<int>(n));
        out[blockIdx.x] = 0.0f;
    }
}

}  // namespace LAB_IMPL
