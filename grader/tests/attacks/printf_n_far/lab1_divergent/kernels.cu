// Attack: printf's %n past the first 4096 bytes of a format made at run time, where a check
// that reads only so far would not see it. Expected: on the emulator, the course's printf
// refuses the format's length and stops the kernel; on a GPU the stub fails.
#include <cstdio>

#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    char format[5004];
    for (int i = 0; i < 5000; ++i) format[i] = 'a';
    format[5000] = '%';
    format[5001] = static_cast<char>('m' + (n > 0u ? 1 : 0));
    format[5002] = '\n';
    format[5003] = '\0';
    int printed = 0;
    if (threadIdx.x == 0 && blockIdx.x == 0) printf(format, &printed);
    if (threadIdx.x == 0) out[blockIdx.x] = static_cast<float>(printed);
}

}  // namespace LAB_IMPL
