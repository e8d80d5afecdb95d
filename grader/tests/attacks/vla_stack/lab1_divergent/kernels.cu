// Attack: a variable-length array sized from an address, which moves the thread's stack
// pointer anywhere; pushes and spills there are never checked. Expected: refused on the
// emulator (a frame whose size is known only when it runs); nvcc refuses it for device code.
#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    char buf[(reinterpret_cast<unsigned long long>(out) & 0xffffu) + n];
    buf[0] = 0;
    char* volatile keep = buf;
    if (threadIdx.x == 0) out[blockIdx.x] = static_cast<float>(keep[0]);
}

}  // namespace LAB_IMPL
