// Attack: do the real work on another stream, where the course's CUDA events do not
// look, from host code started by a global constructor. Expected: refused (a constructor
// of its own; CUDA runtime calls).
#include "contracts/lab1.cuh"

namespace LAB_IMPL {

namespace {
__global__ void warm_cache(float* p) { p[threadIdx.x] = 1.0f; }

struct side_stream {
    side_stream() {
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        float* p = nullptr;
        cudaMalloc(&p, 256 * sizeof(float));
        warm_cache<<<1, 256, 0, s>>>(p);
    }
} start_it;
}  // namespace

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    if (threadIdx.x == 0) out[blockIdx.x] = 0.0f;
}

}  // namespace LAB_IMPL
