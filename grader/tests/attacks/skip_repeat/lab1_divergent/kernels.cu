// Attack: do the work once per large size and, when the same size comes again, write
// nothing, so that whatever an earlier run (the reference's, during timing) left in the
// output stands. The kernel is otherwise the naive reduction. Expected: fails correctness
// on both backends (every run's output is poisoned first), and on a GPU no timed run
// could pass either. Its blocks race on last_n (the last block writes what the others
// read): where blocks run at the same time (a GPU, the emulator on several cores) some
// threads of a block may return and others reach __syncthreads, which the emulator stops
// ("crashed"); on one core it is graded.
#include "contracts/lab1.cuh"

namespace LAB_IMPL {

__device__ unsigned last_n = 0xffffffffu;

__global__ void reduce_divergent(const float* in, float* out, unsigned n) {
    __shared__ float partial[lab1::block_size];
    // Only the first pass of a large sum: the later passes, on the partial sums, are small.
    const bool repeat = n > 65536 && last_n == n;
    __syncthreads();
    if (repeat) return;
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = partial[0];
        if (blockIdx.x == gridDim.x - 1 && n > 65536) last_n = n;
    }
}

}  // namespace LAB_IMPL
