// Attack: a kernel that holds the address of a C library function (a way into the host's
// code on the emulator, where a kernel is host code) and hides it in its result. Expected:
// refused on the emulator; nvcc does not compile it for a GPU (puts is host code).
#include <cstdio>

#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) {
        const auto where = reinterpret_cast<unsigned long long>(&puts);
        out[blockIdx.x] = static_cast<float>((where >> 4) & 1023u);
    }
}

}  // namespace LAB_IMPL
