#pragma once
// Lab 3 contract: the first add during the load, an unrolled last warp, and a fully
// unrolled tree. The course launches the kernels (binding.cuh, beside this file).
#include "contracts/lab_impl.hpp"
#include "course/cuda_compat.hpp"

namespace lab3 {
// Threads per block. The course launches every pass with this block size, and
// instantiates part C's template with it.
inline constexpr unsigned block_size = 256;
}  // namespace lab3

namespace LAB_IMPL {

// All parts: block b sums the 2 * blockDim.x elements
// in[2 * b * blockDim.x .. 2 * (b + 1) * blockDim.x), treating elements at or past n as 0,
// and writes that sum to out[b]. Launched with gridDim.x = ceil(n / 512) blocks of 256
// threads, then again on the partial sums until one value is left.

// Part A: each thread adds two elements while loading, then sequential addressing.
__global__ void reduce_first_add(const float* in, float* out, unsigned n);

// Part B: part A, with the last warp's steps unrolled and synchronised with __syncwarp()
// or done with warp shuffles (never the old volatile tail: it is a race on Volta and later).
__global__ void reduce_warp_unrolled(const float* in, float* out, unsigned n);

// Part C: every step unrolled, with the block size a compile-time constant.
template <unsigned BlockSize>
__global__ void reduce_full_unroll(const float* in, float* out, unsigned n);

#if defined(COURSE_KERNEL_TU)
// The course launches part C from another translation unit, so the lab file's own unit
// must hold this instance. Naming its address asks for it (the compiler instantiates it
// at the end of the unit, after the lab file's definition) and still lets a lab file
// instantiate it explicitly itself.
// The variable has external linkage so that no compiler may drop it, or the instance.
extern constexpr auto course_instance_of_part_c = &reduce_full_unroll<lab3::block_size>;
#endif

}  // namespace LAB_IMPL
