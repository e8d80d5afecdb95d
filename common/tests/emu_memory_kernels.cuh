#pragma once
// Kernels whose memory traffic the emulator's tracing must count exactly
// (test_emu_memory.cpp). emu_memory_kernels.cu defines them and is compiled, like the lab
// files, with the tracing instrumentation; the test launches them from plain host code.
#include "course/cuda_compat.hpp"

namespace memk {

// One warp (32 threads) each.
__global__ void conflict_free(float* out);             // s[t]
__global__ void stride_two(float* out);                // s[2t]
__global__ void column(float* out);                    // [32][32] rows written, a column read
__global__ void padded_column(float* out);             // [32][33]: the same, padded
__global__ void float4_copy(const float4* in, float4* out);
__global__ void strided_global(const float* in, float* out);  // in[32 t]
__global__ void grid_variables(float* out);  // reads __device__ and __constant__ variables, never written

// Blocks of 64 threads.
__global__ void divergent_tree(const float* in, float* out);   // lab 1: tid % (2 stride)
__global__ void volatile_tail(const float* in, float* out);    // the racy warp tail
__global__ void syncwarp_tail(const float* in, float* out);    // the corrected tail
__global__ void missing_barrier(float* out);                   // writes, then reads another warp's word
__global__ void first_block_writes(float* out);                // only block 0 writes shared memory
__global__ void shared_atomics(unsigned* out);                 // atomicAdd on a zeroed shared counter

// Blocks of 256 threads: sequential addressing, 2 elements per thread.
__global__ void tree_reduce(const float* in, float* out, unsigned n);

// Blocks of 128 threads, launched on enough of them that the emulator spreads them over
// several processes (common/emu/block_pool.hpp; test_emu_pool.cpp).
__global__ void racy_blocks(float* out);  // a missing barrier, a 2-way conflict, a divergent step
__global__ void write_past_from(float* out, unsigned first_bad, unsigned second_bad);  // those blocks write past the end
__global__ void spin_from(const int* flag, float* out, unsigned first_spinning);      // those blocks wait for ever
__global__ void last_block_sum(const float* in, float* partials, float* out);         // a __device__ counter
__global__ void atomic_sum(const float* in, float* out);                              // float atomicAdd
__global__ void read_unwritten(float* out);                                           // a __shared__ word never written
__global__ void misaligned_atomic(unsigned* out);                                     // an atomicAdd 2 bytes off a word

}  // namespace memk
