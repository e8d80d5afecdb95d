// Attack: a call through a pointer made from a number, into code the kernel does not name
// (on the emulator, any host code: the worker's own, the C library's). Expected: refused on
// the emulator; on a GPU the call faults or the stub fails.
#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
    if (n == 7u) {
        const auto target = reinterpret_cast<void (*)()>(static_cast<unsigned long long>(n) << 20);
        target();
    }
}

}  // namespace LAB_IMPL
