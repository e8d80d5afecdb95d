// Attack: a function marked as a constructor that changes the worker's environment and
// ends the process early with a success code. Expected: refused (an initializer of its
// own; calls of setenv() and _exit()).
#include <cstdlib>
#include <unistd.h>

#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__attribute__((constructor)) static void early_exit() {
    setenv("COURSE_SANDBOX", "off", 1);
    _exit(0);
}

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

}  // namespace LAB_IMPL
