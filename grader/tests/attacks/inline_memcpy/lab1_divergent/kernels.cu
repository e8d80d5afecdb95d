// Attack: a fixed-size memcpy, which gcc expands into plain moves that the instrumentation
// never sees, aimed far outside the kernel's buffers. Expected: on the emulator the call stays
// a call (-fno-builtin, and _FORTIFY_SOURCE off: Ubuntu's gcc fortifies by itself, and expands
// the fortified memcpy even with -fno-builtin) and the emulator's memcpy refuses it. On a GPU
// it faults.
#include <cstring>

#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) {
        float payload[16] = {};
        std::memcpy(out - (1u << 22), payload, sizeof payload);
        out[blockIdx.x] = 0.0f;
    }
}

}  // namespace LAB_IMPL
