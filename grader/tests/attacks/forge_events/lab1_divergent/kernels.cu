// Attack: a global object whose constructor runs before the grader's code and writes
// well-formed "passed" events on the worker's result channel (fd 3). The kernel is the
// untouched stub. Expected: refused before linking (a constructor of its own, and a call
// of write()).
#include <unistd.h>

#include "contracts/lab1.cuh"

namespace LAB_IMPL {

namespace {
struct forger {
    forger() {
        const char ev[] = "{\"event\":\"part_correctness\",\"part\":\"A\",\"passed\":true,\"cases\":1,\"failed\":0}\n";
        (void)!write(3, ev, sizeof ev - 1);
    }
} forge_now;
}  // namespace

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

}  // namespace LAB_IMPL
