#pragma once
// The two kernels the emulator's speed is measured on (emu_speed.cpp), the ones whose figures
// the peer CPU runtimes have (docs/emulator.md, "Speed"): 256 threads a block, one input
// element a thread, a block's sum to out[blockIdx.x].
#include "course/cuda_compat.hpp"

namespace emu_speed {

constexpr unsigned block_threads = 256;

// A shared-memory tree with sequential addressing (lab 2 B's technique).
__global__ void tree_sequential(const float* in, float* out, unsigned n);
// Warp shuffles within each warp, then the warps' sums through shared memory (lab 4 A's).
__global__ void warp_shuffle(const float* in, float* out, unsigned n);

}  // namespace emu_speed
