// Kernels of test_emu_memory.cpp. It finds the lines its hazards must name by the
// [markers] in comments here.
#include "emu_memory_kernels.cuh"

namespace memk {

__global__ void conflict_free(float* out) {
    __shared__ float s[32];
    const unsigned t = threadIdx.x;
    s[t] = static_cast<float>(t);
    __syncthreads();
    out[t] = s[t];
}

__global__ void stride_two(float* out) {
    __shared__ float s[64];
    const unsigned t = threadIdx.x;
    s[2 * t] = static_cast<float>(t);
    __syncthreads();
    out[t] = s[2 * t];
}

__global__ void column(float* out) {
    __shared__ float tile[32][32];
    const unsigned t = threadIdx.x;
    for (unsigned j = 0; j < 32; ++j) tile[j][t] = static_cast<float>(j);
    __syncthreads();
    out[t] = tile[t][0];
}

__global__ void padded_column(float* out) {
    __shared__ float tile[32][33];
    const unsigned t = threadIdx.x;
    for (unsigned j = 0; j < 32; ++j) tile[j][t] = static_cast<float>(j);
    __syncthreads();
    out[t] = tile[t][0];
}

__global__ void float4_copy(const float4* in, float4* out) {
    __shared__ float4 s[32];
    const unsigned t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[t];
}

__global__ void strided_global(const float* in, float* out) {
    const unsigned t = threadIdx.x;
    out[t] = in[32 * t];
}

__global__ void divergent_tree(const float* in, float* out) {
    __shared__ float partial[64];
    const unsigned tid = threadIdx.x;
    partial[tid] = in[blockIdx.x * 64 + tid];
    __syncthreads();
    for (unsigned stride = 1; stride < 64; stride *= 2) {
        if (tid % (2 * stride) == 0) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

__global__ void volatile_tail(const float* in, float* out) {
    __shared__ float s[64];
    const unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    if (t < 32) {
        volatile float* v = s;
        v[t] += v[t + 32];  // [tail-first]
        v[t] += v[t + 16];
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];  // [tail-last]
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void syncwarp_tail(const float* in, float* out) {
    __shared__ float s[64];
    const unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    if (t < 32) {
        float v = s[t];
        for (unsigned k = 32; k > 0; k /= 2) {
            v += s[t + k];
            __syncwarp();
            s[t] = v;
            __syncwarp();
        }
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void missing_barrier(float* out) {
    __shared__ float s[64];
    const unsigned t = threadIdx.x;
    s[t] = static_cast<float>(t);  // [mb-write]
    out[t] = s[(t + 32) % 64];     // [mb-read]
}

__global__ void first_block_writes(float* out) {
    __shared__ float s[64];
    const unsigned t = threadIdx.x;
    if (blockIdx.x == 0) s[t] = 1.0f;
    __syncthreads();
    out[blockIdx.x * 64 + t] = s[t];  // [fbw-read]
}

__global__ void shared_atomics(unsigned* out) {
    __shared__ unsigned count;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    atomicAdd(&count, 1u);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = count;
}

__global__ void tree_reduce(const float* in, float* out, unsigned n) {
    __shared__ float partial[256];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * 512 + tid;
    float v = i < n ? in[i] : 0.0f;
    if (i + 256 < n) v += in[i + 256];
    partial[tid] = v;
    __syncthreads();
    for (unsigned stride = 128; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

__global__ void racy_blocks(float* out) {
    __shared__ float s[256];
    const unsigned t = threadIdx.x;
    s[2 * t] = static_cast<float>(blockIdx.x);  // 2-way bank conflict
    if (t % 2 == 0) s[2 * t + 1] = 1.0f;       // a divergent store
    out[blockIdx.x * 128 + t] = s[(2 * t + 64) % 256];  // no barrier: another warp's word
}

__global__ void write_past_from(float* out, unsigned first_bad, unsigned second_bad) {
    const unsigned i = blockIdx.x * 128 + threadIdx.x;
    const bool bad = blockIdx.x == first_bad || blockIdx.x == second_bad;
    out[bad ? gridDim.x * 128 + 64 + threadIdx.x : i] = 1.0f;
}

__global__ void spin_from(const int* flag, float* out, unsigned first_spinning) {
    if (blockIdx.x >= first_spinning)
        while (*reinterpret_cast<const volatile int*>(flag) == 0) {
        }
    out[blockIdx.x * 128 + threadIdx.x] = 1.0f;
}

__device__ unsigned g_blocks_done = 0;

__device__ unsigned g_scale = 3;
__device__ __align__(128) float g_table[64];
__constant__ float c_offsets[32] = {1.0f, 2.0f};

__global__ void grid_variables(float* out) {
    const unsigned t = threadIdx.x;
    out[t] = g_table[t] * static_cast<float>(g_scale) + c_offsets[t];
}

__global__ void last_block_sum(const float* in, float* partials, float* out) {
    __shared__ float s[128];
    __shared__ bool last;
    const unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * 128 + t];
    __syncthreads();
    for (unsigned stride = 64; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) {
        partials[blockIdx.x] = s[0];
        __threadfence();
        last = atomicInc(&g_blocks_done, gridDim.x) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && t == 0) {
        float sum = 0.0f;
        for (unsigned b = 0; b < gridDim.x; ++b) sum += partials[b];
        out[0] = sum;
        g_blocks_done = 0;
    }
}

__global__ void atomic_sum(const float* in, float* out) { atomicAdd(out, in[blockIdx.x * 128 + threadIdx.x]); }

__global__ void read_unwritten(float* out) {
    __shared__ float s[128];
    const unsigned t = threadIdx.x;
    if (blockIdx.x % 2 == 0) s[t] = 1.0f;  // the even blocks leave their words behind
    __syncthreads();
    if (blockIdx.x % 2 == 1) out[blockIdx.x * 128 + t] = s[t];
}

__global__ void misaligned_atomic(unsigned* out) {
    atomicAdd(reinterpret_cast<unsigned*>(reinterpret_cast<char*>(out) + 2), 1u);
}

}  // namespace memk
