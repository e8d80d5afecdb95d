// Test submission: the naive reduction with a load bound that drops the partial last block.
#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    __shared__ float partial[lab1::block_size];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < n / blockDim.x * blockDim.x ? in[i] : 0.0f;  // drops a partial last block
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

}  // namespace LAB_IMPL
