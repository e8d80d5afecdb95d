// Test submission: lab 1's divergent kernel handed in for both parts of lab 2. Right
// answers; on the emulator no_divergence fails both parts (most tree steps leave lanes of
// every warp idle), as the timing does on a GPU.
#include "contracts/lab2.cuh"

namespace LAB_IMPL {

__device__ void divergent_tree(const float* in, float* out, unsigned n) {
    __shared__ float partial[lab2::block_size];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

__global__ void reduce_strided(const float* in, float* out, unsigned n) { divergent_tree(in, out, n); }

__global__ void reduce_sequential(const float* in, float* out, unsigned n) { divergent_tree(in, out, n); }

}  // namespace LAB_IMPL
