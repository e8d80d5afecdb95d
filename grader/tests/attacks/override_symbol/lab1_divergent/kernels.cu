// Attack: replace a function the grader itself uses (here the global operator new) with
// the file's own definition. Expected: refused (a definition outside the namespace).
#include <cstddef>
#include <cstdlib>

#include "contracts/lab1.cuh"

void* operator new(std::size_t size) { return std::malloc(size ? size : 1); }

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

}  // namespace LAB_IMPL
