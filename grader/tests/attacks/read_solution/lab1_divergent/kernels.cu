// Attack: host code that reads the reference solution and writes a copy where the
// student can find it. Nothing calls it here; a constructor or a kernel could. Expected:
// refused (calls of fopen() and friends).
#include <cstdio>

#include "contracts/lab1.cuh"

namespace LAB_IMPL {

void steal() {
    if (FILE* in = std::fopen("../../solutions/lab1_divergent/kernels.cu", "r")) {
        char buf[4096];
        const std::size_t got = std::fread(buf, 1, sizeof buf, in);
        if (FILE* out = std::fopen("/tmp/stolen.cu", "w")) {
            std::fwrite(buf, 1, got, out);
            std::fclose(out);
        }
        std::fclose(in);
    }
}

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

}  // namespace LAB_IMPL
