#pragma once
// Host entry points of the kernels the emulator's tests run. emu_probe_kernels.cu defines
// them; it is compiled for the GPU and for the CPU emulator, so the same test can run on
// both and must give the same answer.
#include <cstdint>
#include <vector>

namespace probe {

// Each returns what the kernel wrote, copied back to the host.
std::vector<float> shuffle_down_sums(const std::vector<float>& in);           // warp sums via __shfl_down_sync
std::vector<int> shuffle_patterns(int width);                                 // idx/up/down/xor per lane
std::vector<unsigned> ballots(const std::vector<int>& predicate);             // per warp
std::vector<float> syncwarp_tail_sums(const std::vector<float>& in);          // block sums, __syncwarp tail
std::vector<float> volatile_tail_sums(const std::vector<float>& in);          // block sums, racy volatile tail
std::vector<int> syncthreads_counts(const std::vector<int>& predicate);       // per block
std::vector<float> shared_is_per_block(unsigned blocks);                      // block b writes b into shared
std::vector<unsigned> atomic_histogram(const std::vector<unsigned>& values);  // 16 bins
std::vector<float> float4_copy(const std::vector<float>& in);                 // vector loads
std::vector<unsigned> grid_indices(unsigned gx, unsigned gy, unsigned bx, unsigned by);  // linear ids

// Kernels that misuse CUDA. On a GPU they hang, crash or are undefined; the emulator must
// stop each with a message. Each throws what the launch throws.
void divergent_syncthreads();       // threads >= 128 skip a barrier and return
void mismatched_syncthreads();      // two halves of a block at two different barriers
void early_return_then_sync();      // threads past n return, the rest synchronise
void shuffle_missing_lane();        // lanes 16-31 return; 0-15 shuffle with a full mask
void shuffle_vs_barrier_deadlock(); // half a warp shuffles, the other half waits at a barrier
void mask_names_missing_lanes();    // a full-mask shuffle in a warp of 16 threads
void shuffle_reads_outside_mask();  // lane 15 of mask 0x0000ffff reads lane 16
void write_past_end(unsigned n);    // writes out[n] of an n-float buffer
void read_far_past_end();           // reads in[n + 4096]
void spin_forever();                // waits for a flag nobody sets

}  // namespace probe
