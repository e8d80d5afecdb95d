// Planted bug, a course test file (grader/tests/planted_hints.json): lab 2: A's strides start at 2; B's blocks start two block widths apart.
// The rest is the reference, comments included.
// Lab 2 reference: interleaved addressing without divergence, then sequential addressing.
#include "contracts/lab2.cuh"

namespace LAB_IMPL {

// Part A: interleaved addressing with a strided index.
//
// Why it is faster than lab 1: the work no longer goes to every (2*stride)-th thread but to
// threads 0, 1, 2, ..., so whole warps are either busy or idle, and an idle warp skips
// the add entirely. No `%` either.
// Why it is still slow: in step `stride`, lane k of a warp touches word 2*stride*k of shared
// memory. With 32 banks of 4 bytes, stride 1 already puts two lanes on every bank they
// use (2-way conflicts), stride 16 puts all 32 on bank 0: each conflict replays the access.
__global__ void reduce_strided(const float* in, float* out, unsigned n) {
    __shared__ float partial[lab2::block_size];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned stride = 2; stride < blockDim.x; stride *= 2) {
        const unsigned index = 2 * stride * tid;
        if (index < blockDim.x) partial[index] += partial[index + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

// Part B: sequential addressing.
//
// Why it is faster: the active threads are still contiguous, and now so are the words
// they touch: lane k reads partial[k] and partial[k + stride], consecutive words for
// consecutive lanes, so a warp's 32 accesses hit 32 different banks (no conflicts).
// Why it is not fast yet: half the threads are idle from the very first step (they only
// loaded one element), and the last steps run a single warp that still pays a full
// __syncthreads() each time. Lab 3 attacks both.
__global__ void reduce_sequential(const float* in, float* out, unsigned n) {
    __shared__ float partial[lab2::block_size];
    const unsigned tid = threadIdx.x;
    const unsigned i = 2 * blockIdx.x * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

}  // namespace LAB_IMPL
