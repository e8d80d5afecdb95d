#pragma once
// Host entry points of the cooperative-groups kernels the emulator's tests run.
// emu_probe_cg.cu defines them; like emu_probe_kernels.cu it is compiled for the GPU (the
// CUDA toolkit's <cooperative_groups.h>) and for the CPU emulator (common/emu/include/), so
// the same test checks that both give the same answer.
#include <vector>

namespace probe_cg {

// Each returns what the kernel wrote, copied back to the host.
std::vector<float> tile32_shfl_down_sums(const std::vector<float>& in);  // per tile<32>, blocks of 64
std::vector<int> tile16_patterns();  // 32 lanes, tile<16>: shfl(3), shfl_up(1), shfl_down(2), shfl_xor(4)
// Per thread of one 32x3 block (96 threads), at 9 * (x + 32 y), 9 ints: block.thread_rank(),
// block.size(); tile<8>'s thread_rank, meta_group_rank, meta_group_size; those of a tile<4>
// cut from a tile<16>; and tiled_partition(block, 8)'s thread_rank.
std::vector<int> ranks();
// cg::reduce over the tiles of blocks of 64 threads, read from each tile's last thread
// (every thread gets the result).
struct reduce_results {
    std::vector<int> plus;       // per tile<32>
    std::vector<int> greater;    // per tile<32>: the largest value
    std::vector<int> less8;      // per tile<8>: the smallest value
    std::vector<unsigned> bits;  // per tile<32>: bit_and, bit_or, bit_xor of the values
};
reduce_results reduce_all(const std::vector<int>& in);
// One block of 256: each thread writes in[t] to shared memory, block.sync(), reads the
// element of thread 255 - t.
std::vector<float> block_sync_reverse(const std::vector<float>& in);
// Per thread of one warp, tile<8>: ballot, any, all of pred (3 values per thread).
std::vector<unsigned> tile8_votes(const std::vector<int>& pred);

// Misuse, emulator only: each throws what the launch throws.
void tile_sync_missing_lane();  // tile<16>: lane 5 returns, the others tile.sync()
void syncwarp_missing_lane();   // the same with __syncwarp(0x0000ffff), for comparison

}  // namespace probe_cg
