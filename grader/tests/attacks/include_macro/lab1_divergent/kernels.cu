// Attack: hide the included path behind a macro, past a check that reads #include lines
// as text. Expected: refused (a computed #include).
#define SECRET </etc/hostname>
#include SECRET
#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

}  // namespace LAB_IMPL
