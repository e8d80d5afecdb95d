// Attack: printf's %n, which writes the count of characters printed so far through a
// pointer: a store that no memory check sees, to any address. Expected: refused on every
// backend.
#include <cstdio>

#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    int printed = 0;
    if (threadIdx.x == 0 && n == 3u) printf("%d%n\n", n, &printed);
    if (threadIdx.x == 0) out[blockIdx.x] = static_cast<float>(printed);
}

}  // namespace LAB_IMPL
