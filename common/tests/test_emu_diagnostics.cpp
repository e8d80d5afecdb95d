// What the CPU emulator diagnoses where a GPU would hang, crash or silently compute
// garbage. Emulator only: on a GPU these kernels are undefined behaviour.
#include <doctest/doctest.h>

#include <cstdlib>

#include "emu/emu_stats.hpp"
#include "emu_probe_cg.cuh"
#include "emu_probe_kernels.cuh"
#include "course/cuda_compat.hpp"

using doctest::Contains;

TEST_CASE("a divergent __syncthreads is an error, not a hang") {
    CHECK_THROWS_WITH_AS(probe::divergent_syncthreads(),
                         Contains("kernel 'k_divergent_syncthreads', block (0,0,0), thread (128,0,0): returned while "
                                  "128 thread(s) of its block wait at __syncthreads() (emu_probe_kernels.cu:"),
                         emu::kernel_error);
}

TEST_CASE("two halves of a block at two different barriers") {
    CHECK_THROWS_WITH_AS(probe::mismatched_syncthreads(), Contains("while 128 thread(s) of its block wait at"),
                         emu::kernel_error);
}

TEST_CASE("returning early and then synchronising") {
    // Threads 0-99 reach the barrier first; thread 100 then returns instead.
    CHECK_THROWS_WITH_AS(probe::early_return_then_sync(),
                         Contains("thread (100,0,0): returned while 100 thread(s) of its block wait at __syncthreads()"),
                         emu::kernel_error);
}

TEST_CASE("a shuffle whose mask names lanes that never arrive") {
    CHECK_THROWS_WITH_AS(probe::shuffle_missing_lane(),
                         Contains("__shfl_down_sync(mask 0xffffffff)"), emu::kernel_error);
}

TEST_CASE("half a warp at a shuffle, the rest at a barrier: deadlock") {
    CHECK_THROWS_WITH_AS(probe::shuffle_vs_barrier_deadlock(), Contains("deadlock"), emu::kernel_error);
    // And the report says who waits where.
    CHECK_THROWS_WITH_AS(probe::shuffle_vs_barrier_deadlock(),
                         Contains("warp 0: lanes 0-15 wait at __shfl_sync(mask 0xffffffff)"), emu::kernel_error);
}

TEST_CASE("a mask naming lanes that do not exist") {
    CHECK_THROWS_WITH_AS(probe::mask_names_missing_lanes(),
                         Contains("mask 0xffffffff names lanes 16-31 that do not exist (the block has 48 threads)"),
                         emu::kernel_error);
}

TEST_CASE("a shuffle reading a lane outside its mask") {
    CHECK_THROWS_WITH_AS(probe::shuffle_reads_outside_mask(),
                         Contains("thread (15,0,0): __shfl_down_sync (emu_probe_kernels.cu:"), emu::kernel_error);
    CHECK_THROWS_WITH_AS(probe::shuffle_reads_outside_mask(),
                         Contains("reads lane 16, which is not in the mask 0x0000ffff: the value is undefined on a GPU"),
                         emu::kernel_error);
}

TEST_CASE("a write one element past the end of a buffer") {
    // 64 floats end exactly at the guard page: the write faults at once.
    CHECK_THROWS_WITH_AS(probe::write_past_end(64),
                         Contains("out-of-bounds write: 0 bytes past the end of device buffer 'out' (256 bytes)"),
                         emu::kernel_error);
    // 30 floats end 8 bytes short of it: the write lands in the slack, found after the launch.
    CHECK_THROWS_WITH_AS(probe::write_past_end(30),
                         Contains("kernel 'k_write_past_end' wrote past the end of device buffer 'out' (120 bytes)"),
                         emu::kernel_error);
}

TEST_CASE("a read far past the end of a buffer") {
    CHECK_THROWS_WITH_AS(probe::read_far_past_end(),
                         Contains("kernel 'k_read_far_past_end', block (0,0,0), thread (0,0,0): out-of-bounds read"),
                         emu::kernel_error);
}

TEST_CASE("the emulator survives a fault and runs the next kernel") {
    CHECK_THROWS(probe::write_past_end(64));
    const auto out = probe::syncwarp_tail_sums(std::vector<float>(64, 1.0f));
    CHECK(out == std::vector<float>{64.0f});
}

TEST_CASE("the racy volatile warp tail gives a wrong sum") {
    // Fibers run in lane order until they block. The old tail never blocks, so lane 0
    // finishes all six steps before lane 1 starts, reading s[16], s[8], ... before the
    // lanes that own them have added into them: 1+1+1+1+1+1+1 = 7, not 64. On Volta and
    // later GPUs the same race exists but usually goes unnoticed; racecheck reports it.
    const auto out = probe::volatile_tail_sums(std::vector<float>(64 * 2, 1.0f));
    CHECK(out == std::vector<float>{7.0f, 7.0f});
}

TEST_CASE("the watchdog stops a kernel that never finishes") {
    setenv("COURSE_EMU_WATCHDOG_SECONDS", "1", 1);
    CHECK_THROWS_WITH_AS(probe::spin_forever(), Contains("kernel 'k_spin', block (0,0,0), thread (0,0,0): stopped by "
                                                         "the watchdog after 1 s"),
                         emu::kernel_error);
    unsetenv("COURSE_EMU_WATCHDOG_SECONDS");
}

TEST_CASE("a tile.sync() that a lane of the tile never reaches, like __syncwarp") {
    // A tile<16>'s sync() is __syncwarp() with the tile's mask: the same diagnosis, at the
    // line of the tile.sync() call.
    const char* message = "kernel 'k_tile_sync_missing_lane', block (0,0,0), thread (5,0,0): returned, but lanes "
                          "0-4 of its warp wait for it at __syncwarp(mask 0x0000ffff) (emu_probe_cg.cu:";
    CHECK_THROWS_WITH_AS(probe_cg::tile_sync_missing_lane(), Contains(message), emu::kernel_error);
    CHECK_THROWS_WITH_AS(probe_cg::syncwarp_missing_lane(),
                         Contains("thread (5,0,0): returned, but lanes 0-4 of its warp wait for it at "
                                  "__syncwarp(mask 0x0000ffff) (emu_probe_cg.cu:"),
                         emu::kernel_error);
    // The call's place in the executable follows its line, for the grader's addr2line to
    // name the kernel line an inlined helper was called from (grader/core/code_place.hpp).
    CHECK_THROWS_WITH_AS(probe_cg::tile_sync_missing_lane(), Contains(" [via exe+0x"), emu::kernel_error);
}

TEST_CASE("tile shuffles and cg::reduce count as warp shuffles") {
    emu::reset_launch_stats();
    probe_cg::tile32_shfl_down_sums(std::vector<float>(128, 1.0f));  // 2 blocks of 2 warps, 5 steps each
    probe_cg::reduce_all(std::vector<int>(64, 1));  // 1 block of 2 warps
    const auto stats = emu::launch_stats();
    CHECK(stats.at("k_tile32_sums").warp_shuffles == 20u);
    // Per warp: 5 reductions over tile<32> of 5 xor steps each, and one over each of its four
    // tile<8>s of 3 steps; the tiles' masks are disjoint, so each completes its own shuffle.
    CHECK(stats.at("k_reduce").warp_shuffles == 2u * (5u * 5u + 4u * 3u));
}
