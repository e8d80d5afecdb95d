// Attack: a local array indexed by a variable past its end. gcc's memory instrumentation
// does not see a local array whose address never escapes, so without a bounds check such a
// store could land anywhere in the process that runs the kernel. Expected: stopped on the
// emulator ("out-of-bounds index"); never a pass on a GPU (the kernel is the stub besides).
#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    acc[n % 4096u] = 1.0f;
    if (threadIdx.x == 0) out[blockIdx.x] = acc[0] * 0.0f;
}

}  // namespace LAB_IMPL
