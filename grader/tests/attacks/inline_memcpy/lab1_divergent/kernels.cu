// Attack: a fixed-size memcpy, which gcc expands into plain moves that the instrumentation
// never sees, aimed far outside the kernel's buffers. Expected: on the emulator it stops the
// kernel either way: gcc 12 keeps the call (-fno-builtin) and the emulator's memcpy refuses it;
// gcc 13 still expands it, into moves that the instrumentation then sees. On a GPU it faults.
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
