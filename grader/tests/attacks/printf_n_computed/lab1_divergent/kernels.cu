// Attack: printf's %n in a format made at run time, where no check of the file's strings
// sees it. Expected: on the emulator, the course's printf refuses it and stops the kernel;
// on a GPU the stub fails.
#include <cstdio>

#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    char format[4] = {'%', static_cast<char>('m' + (n > 0u ? 1 : 0)), '\n', '\0'};
    int printed = 0;
    if (threadIdx.x == 0) printf(format, &printed);
    if (threadIdx.x == 0) out[blockIdx.x] = static_cast<float>(printed);
}

}  // namespace LAB_IMPL
