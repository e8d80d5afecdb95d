// Test submission: lab 3 whose part A writes far outside its output past 1000 elements (an
// illegal address on a GPU: a sticky error that ends the worker), with B and C the reference's.
// B and C must still be graded, in a new worker, and pass: the fault is A's alone.
#include "contracts/lab3.cuh"

namespace LAB_IMPL {

namespace {

// Loads this thread's two elements (0 past n) and adds them: half as many blocks as
// elements-per-thread-1 kernels, and no thread idles in the first step.
__device__ __forceinline__ float load_two(const float* in, unsigned n) {
    const unsigned i = blockIdx.x * 2 * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    return v;
}

// The last 32 values, summed by warp 0 in registers, with __syncwarp() between the read
// of a neighbour's value and the write of the own: since Volta the lanes of a warp may
// run apart, and without these syncs a lane could read s[t + k] before its owner wrote it.
__device__ __forceinline__ float warp_tail(float* s, unsigned t, float v) {
    for (unsigned k = 32; k > 0; k /= 2) {
        v += s[t + k];
        __syncwarp();
        s[t] = v;
        __syncwarp();
    }
    return v;
}

}  // namespace

// Part A: first add during the load.
//
// Why it is faster: lab 2's kernel left half its threads idle after the load. Here every
// thread adds two elements while loading, so the grid shrinks by half and every thread
// does useful work; the bytes read stay the same, the instructions and barriers per
// element halve.
__global__ void reduce_first_add(const float* in, float* out, unsigned n) {
    __shared__ float partial[lab3::block_size];
    const unsigned tid = threadIdx.x;
    partial[tid] = load_two(in, n);
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
    if (tid == 0 && n > 1000) out[blockIdx.x + (1u << 28)] = partial[0];
}

// Part B: the last warp unrolled.
//
// Why it is faster: once 32 or fewer threads are active, only warp 0 works, yet every step
// still paid a __syncthreads() for the whole block and a loop test. Warp 0 now finishes
// alone, in registers, with __syncwarp() (cheap, and only for its own lanes) instead.
__global__ void reduce_warp_unrolled(const float* in, float* out, unsigned n) {
    __shared__ float partial[lab3::block_size];
    const unsigned tid = threadIdx.x;
    float v = load_two(in, n);
    partial[tid] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 32; stride /= 2) {
        if (tid < stride) partial[tid] = v = v + partial[tid + stride];
        __syncthreads();
    }
    if (tid < 32) v = warp_tail(partial, tid, v);
    if (tid == 0) out[blockIdx.x] = v;
}

// Part C: fully unrolled.
//
// Why it is faster: with BlockSize a template parameter, every `if (BlockSize >= ...)` is
// decided by the compiler, the loop disappears and so do its counter and test; the
// unused steps for smaller blocks are not even compiled. A runtime blockDim.x could not
// do this: the compiler would have to keep the loop for every possible size.
template <unsigned BlockSize>
__global__ void reduce_full_unroll(const float* in, float* out, unsigned n) {
    static_assert(BlockSize >= 64 && BlockSize <= 1024 && (BlockSize & (BlockSize - 1)) == 0,
                  "the block size must be a power of two from 64 to 1024");
    __shared__ float partial[BlockSize];
    const unsigned tid = threadIdx.x;
    float v = load_two(in, n);
    partial[tid] = v;
    __syncthreads();
    if (BlockSize >= 1024) {
        if (tid < 512) partial[tid] = v = v + partial[tid + 512];
        __syncthreads();
    }
    if (BlockSize >= 512) {
        if (tid < 256) partial[tid] = v = v + partial[tid + 256];
        __syncthreads();
    }
    if (BlockSize >= 256) {
        if (tid < 128) partial[tid] = v = v + partial[tid + 128];
        __syncthreads();
    }
    if (BlockSize >= 128) {
        if (tid < 64) partial[tid] = v = v + partial[tid + 64];
        __syncthreads();
    }
    if (tid < 32) v = warp_tail(partial, tid, v);
    if (tid == 0) out[blockIdx.x] = v;
}

}  // namespace LAB_IMPL
