// Cooperative groups: what the CPU emulator (common/emu/include/cooperative_groups.h) and a
// real GPU (the CUDA toolkit's header) must agree on. Runs against both backends, linked
// into emu.agreement.emulated and emu.agreement.gpu.
#include <doctest/doctest.h>

#include <numeric>

#include "emu_probe_cg.cuh"

TEST_CASE("cg: a tile<32> shfl_down reduction gives the exact sum") {
    std::vector<float> in(128);
    std::iota(in.begin(), in.end(), 0.0f);
    const auto out = probe_cg::tile32_shfl_down_sums(in);
    CHECK(out == std::vector<float>{496.0f, 1520.0f, 2544.0f, 3568.0f});  // 0+...+31, 32+...+63, ...
}

TEST_CASE("cg: tile<16> shuffles stay inside their 16 lanes") {
    const auto out = probe_cg::tile16_patterns();
    CHECK(out[0] == 30);         // shfl from rank 3 of the first tile
    CHECK(out[15] == 30);
    CHECK(out[16] == 190);       // ... and of the second: lane 19
    CHECK(out[31] == 190);
    CHECK(out[32 + 0] == 0);     // shfl_up by 1: rank 0 keeps its own
    CHECK(out[32 + 1] == 0);
    CHECK(out[32 + 16] == 160);  // lane 16 is rank 0 of its tile
    CHECK(out[32 + 17] == 160);
    CHECK(out[64 + 13] == 150);  // shfl_down by 2
    CHECK(out[64 + 14] == 140);  // ranks 14 and 15 keep their own: width 16
    CHECK(out[64 + 15] == 150);
    CHECK(out[64 + 29] == 310);
    CHECK(out[64 + 30] == 300);
    CHECK(out[96 + 1] == 50);    // shfl_xor with 4
    CHECK(out[96 + 21] == 170);
}

TEST_CASE("cg: thread_rank, size and meta_group_rank in a 32x3 block") {
    const auto out = probe_cg::ranks();
    REQUIRE(out.size() == 96 * 9);
    // Thread (5, 2): block rank 69 of 96; rank 5 of tile<8> number 8 of 12; in tile<16>
    // number 4 it is rank 5, so rank 1 of that tile's tile<4> number 1 of 4.
    const int* t = &out[9 * 69];
    CHECK(std::vector<int>(t, t + 9) == std::vector<int>{69, 96, 5, 8, 12, 1, 1, 4, 5});
    const int* first = &out[0];
    CHECK(std::vector<int>(first, first + 9) == std::vector<int>{0, 96, 0, 0, 12, 0, 0, 4, 0});
    const int* last = &out[9 * 95];
    CHECK(std::vector<int>(last, last + 9) == std::vector<int>{95, 96, 7, 11, 12, 3, 3, 4, 7});
}

TEST_CASE("cg::reduce with plus, greater, less and the bit operators") {
    std::vector<int> in(128);
    for (int i = 0; i < 128; ++i) in[i] = (i * 37) % 101;  // 0, 37, 74, 10, 47, ...
    in[40] = -5;
    const auto r = probe_cg::reduce_all(in);
    CHECK(r.plus == std::vector<int>{1586, 1528, 1612, 1524});
    CHECK(r.greater == std::vector<int>{100, 99, 98, 97});
    REQUIRE(r.less8.size() == 16);
    CHECK(r.less8[0] == 0);
    CHECK(r.less8[5] == -5);  // in[40] is in tile<8> number 5
    CHECK(r.less8[15] == 6);
    REQUIRE(r.bits.size() == 12);
    CHECK(r.bits[0] == 0u);     // and: in[0] is 0
    CHECK(r.bits[1] == 0x7fu);  // or of values up to 100
    CHECK(r.bits[2] == 0x74u);
    CHECK(r.bits[3] == 0u);
    CHECK(r.bits[4] == 0xffffffffu);  // or with -5
    CHECK(r.bits[5] == 0xffffffa2u);
}

TEST_CASE("cg: block.sync() is a barrier") {
    std::vector<float> in(256);
    std::iota(in.begin(), in.end(), 1.0f);
    const auto out = probe_cg::block_sync_reverse(in);
    REQUIRE(out.size() == 256);
    CHECK(out[0] == 256.0f);
    CHECK(out[255] == 1.0f);
    CHECK(out == std::vector<float>(in.rbegin(), in.rend()));
}

TEST_CASE("cg: tile<8> ballot, any and all") {
    std::vector<int> pred(32, 0);
    pred[1] = 1;
    pred[3] = 7;
    for (int l = 8; l < 16; ++l) pred[l] = 1;
    pred[31] = 1;
    const auto out = probe_cg::tile8_votes(pred);
    CHECK(std::vector<unsigned>(out.begin(), out.begin() + 3) == std::vector<unsigned>{0xau, 1u, 0u});
    CHECK(std::vector<unsigned>(out.begin() + 3 * 9, out.begin() + 3 * 10) == std::vector<unsigned>{0xffu, 1u, 1u});
    CHECK(std::vector<unsigned>(out.begin() + 3 * 20, out.begin() + 3 * 21) == std::vector<unsigned>{0u, 0u, 0u});
    CHECK(std::vector<unsigned>(out.begin() + 3 * 24, out.begin() + 3 * 25) == std::vector<unsigned>{0x80u, 1u, 0u});
}
