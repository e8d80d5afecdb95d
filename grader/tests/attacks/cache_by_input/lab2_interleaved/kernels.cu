// Test submission for the grader's tests (not a course solution, not an example to
// follow). Part A is the reference's strided kernel. Part B caches: it remembers every
// block's sum for an input it has seen, keyed on n and a few elements of the input, and
// when it sees that key again returns the remembered sums without reading the rest. On
// an unchanged input it is right and very fast; the grader must catch it by changing a
// few input elements between calls ("random, changed" case, checked timed runs).
#include <cstring>

#include "contracts/lab2.cuh"

namespace LAB_IMPL {

namespace {

constexpr unsigned cache_slots = 4;
// Enough blocks for n = 2^25 in blocks of 256; larger grids are just summed.
constexpr unsigned cache_blocks = (1u << 25) / lab2::block_size;

// One entry per slot and per block, so that no block ever reads another block's entry
// while that block is writing it. Key 0 means empty.
__device__ unsigned long long cache_key[cache_slots][cache_blocks];
__device__ float cache_sum[cache_slots][cache_blocks];

__device__ unsigned long long mix_in(unsigned long long h, unsigned long long v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xbf58476d1ce4e5b9ull;
}

__device__ unsigned long long bits_of(float v) {
    unsigned u = 0;
    memcpy(&u, &v, sizeof u);
    return u;
}

// n, the first four elements and the last one: the last tells apart inputs such as the
// partial sums of 65535 and 65536 ones, which agree on the first four.
__device__ unsigned long long input_key(const float* in, unsigned n) {
    unsigned long long h = mix_in(0, n);
    for (unsigned i = 0; i < 4 && i < n; ++i) h = mix_in(h, bits_of(in[i]));
    h = mix_in(h, bits_of(in[n - 1]));
    return h | 1;
}

}  // namespace

__global__ void reduce_strided(const float* in, float* out, unsigned n) {
    __shared__ float partial[lab2::block_size];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        const unsigned index = 2 * stride * tid;
        if (index < blockDim.x) partial[index] += partial[index + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

__global__ void reduce_sequential(const float* in, float* out, unsigned n) {
    __shared__ float partial[lab2::block_size];
    const unsigned tid = threadIdx.x;
    const unsigned b = blockIdx.x;
    const bool cacheable = b < cache_blocks;
    const unsigned long long key = input_key(in, n);
    const unsigned slot = static_cast<unsigned>(key % cache_slots);
    if (cacheable && cache_key[slot][b] == key) {  // seen this input: skip the work
        if (tid == 0) out[b] = cache_sum[slot][b];
        return;
    }

    const unsigned i = b * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0) {
        out[b] = partial[0];
        if (cacheable) {
            cache_sum[slot][b] = partial[0];
            cache_key[slot][b] = key;
        }
    }
}

}  // namespace LAB_IMPL
