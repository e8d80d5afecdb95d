// Semantics that the CPU emulator and a real GPU must agree on. The same file runs
// against both backends (test_emu_agreement_emulated, test_emu_agreement_gpu).
#include <doctest/doctest.h>

#include <numeric>

#include "emu_probe_kernels.cuh"

TEST_CASE("__shfl_down_sync sums each warp") {
    std::vector<float> in(128);
    std::iota(in.begin(), in.end(), 0.0f);
    const auto out = probe::shuffle_down_sums(in);
    REQUIRE(out.size() == 4);
    CHECK(out[0] == 496.0f);   // 0 + ... + 31
    CHECK(out[1] == 1520.0f);  // 32 + ... + 63
    CHECK(out[3] == 3568.0f);
}

TEST_CASE("shuffle variants, full width") {
    const auto out = probe::shuffle_patterns(32);
    CHECK(out[0] == 30);        // __shfl_sync from lane 3
    CHECK(out[31] == 30);
    CHECK(out[32 + 0] == 0);    // __shfl_up_sync by 2: lanes 0 and 1 keep their own
    CHECK(out[32 + 1] == 10);
    CHECK(out[32 + 5] == 30);
    CHECK(out[64 + 0] == 20);   // __shfl_down_sync by 2
    CHECK(out[64 + 30] == 300); // lanes 30 and 31 keep their own
    CHECK(out[64 + 31] == 310);
    CHECK(out[96 + 4] == 50);   // __shfl_xor_sync with 1
    CHECK(out[96 + 5] == 40);
}

TEST_CASE("shuffle variants, width 8") {
    const auto out = probe::shuffle_patterns(8);
    CHECK(out[9] == 110);       // lane 9 is in segment 8..15: reads lane 8 + 3
    CHECK(out[32 + 8] == 80);   // up: first lanes of a segment keep their own
    CHECK(out[32 + 10] == 80);
    CHECK(out[64 + 14] == 140); // down: last lanes of a segment keep their own
    CHECK(out[64 + 12] == 140);
    CHECK(out[96 + 15] == 140);
}

TEST_CASE("__ballot_sync collects one bit per lane") {
    std::vector<int> pred(64, 0);
    pred[0] = 1;
    pred[5] = 7;
    pred[31] = 1;
    pred[32 + 1] = 1;
    const auto out = probe::ballots(pred);
    CHECK(out[0] == 0x80000021u);
    CHECK(out[1] == 0x00000002u);
}

TEST_CASE("a warp tail with __syncwarp is correct") {
    const std::vector<float> ones(64 * 3, 1.0f);
    const auto out = probe::syncwarp_tail_sums(ones);
    CHECK(out == std::vector<float>{64.0f, 64.0f, 64.0f});
}

TEST_CASE("__syncthreads_count counts the block's true predicates") {
    std::vector<int> pred(256, 0);
    for (int i = 0; i < 128; i += 3) pred[i] = 1;  // 43 in block 0
    pred[200] = 1;
    const auto out = probe::syncthreads_counts(pred);
    CHECK(out == std::vector<int>{43, 1});
}

TEST_CASE("__shared__ memory belongs to one block") {
    const auto out = probe::shared_is_per_block(5);
    CHECK(out == std::vector<float>{0.0f, 1.0f, 2.0f, 3.0f, 4.0f});
}

TEST_CASE("atomicAdd from many threads loses nothing") {
    std::vector<unsigned> values(1000);
    std::iota(values.begin(), values.end(), 0u);
    const auto bins = probe::atomic_histogram(values);
    CHECK(bins[0] == 63u);  // 0, 16, ..., 992
    CHECK(bins[7] == 63u);
    CHECK(bins[8] == 62u);  // 8, ..., 984
    CHECK(std::accumulate(bins.begin(), bins.end(), 0u) == 1000u);
}

TEST_CASE("float4 loads and stores") {
    std::vector<float> in(64);
    std::iota(in.begin(), in.end(), 1.0f);
    CHECK(probe::float4_copy(in) == in);
}

TEST_CASE("2D grids and blocks") {
    const auto out = probe::grid_indices(3, 2, 4, 2);
    REQUIRE(out.size() == 48);
    for (unsigned i = 0; i < out.size(); ++i) CHECK(out[i] == i);
}
