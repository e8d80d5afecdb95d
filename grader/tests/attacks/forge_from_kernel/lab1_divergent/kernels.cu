// Attack: the untouched stub, whose thread 0 goes from a symbol kernels may use (printf)
// to the C library's write(), through an offset, and writes "passed" events on the
// worker's result channel (fd 3). Expected: refused on the emulator (it takes printf's
// address and calls through a pointer); nvcc does not compile it for a GPU.
#include <cstdio>

#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        const char ev[] = "{\"event\":\"part_correctness\",\"part\":\"A\",\"passed\":true,\"cases\":1,\"failed\":0}\n";
        const auto base = reinterpret_cast<unsigned long long>(&printf);
        // The distance from printf to write in the C library, as a student measured it.
        const auto write_fn = reinterpret_cast<long (*)(int, const void*, unsigned long)>(base + 0x9c5f0ull);
        write_fn(3, ev, sizeof ev - 1);
    }
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

}  // namespace LAB_IMPL
