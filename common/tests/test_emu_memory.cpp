// What a traced emulated launch counts (emu::set_tracing): shared wavefronts and global
// sectors per warp request by the hardware's rules, divergence, barriers, and the shared
// memory hazards (races, reads of unwritten words) with the lines they happen at.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "course/device_buffer.hpp"
#include "emu/emu_stats.hpp"
#include "emu_memory_kernels.cuh"

namespace {

template <typename... Params, typename... Args>
emu::kernel_stats traced(const char* name, void (*kernel)(Params...), dim3 grid, dim3 block, Args&&... args) {
    emu::reset_launch_stats();
    emu::set_tracing(true);
    emu::launch(name, kernel, grid, block, std::forward<Args>(args)...);
    emu::set_tracing(false);
    return emu::launch_stats()[name];
}

std::vector<float> ones(std::size_t n) { return std::vector<float>(n, 1.0f); }

course::device_buffer<float> upload(const std::vector<float>& host) {
    course::device_buffer<float> d(host.size(), "in");
    d.upload(host.data(), host.size());
    return d;
}

// "emu_memory_kernels.cu:N" for each " [at exe+0x...]" mark of `message`, read from this
// executable's line tables as the grader does (grader/core/code_place.hpp).
std::vector<std::string> places(const std::string& message) {
    std::vector<std::string> out;
    const std::string open = " [at exe+";
    for (std::size_t at = message.find(open); at != std::string::npos; at = message.find(open, at + 1)) {
        const std::string hex = message.substr(at + open.size(), message.find(']', at) - at - open.size());
        const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
        FILE* p = popen(("addr2line -e '" + self + "' " + hex).c_str(), "r");
        char buf[4096] = {};
        const std::size_t got = p != nullptr ? std::fread(buf, 1, sizeof buf - 1, p) : 0;
        if (p != nullptr) pclose(p);
        std::string where(buf, got);
        where = where.substr(0, where.find_first_of(" \n"));
        out.push_back(where.substr(where.find_last_of('/') + 1));
    }
    return out;
}

// "emu_memory_kernels.cu:N", the line of emu_memory_kernels.cu with `marker` in a comment.
std::string line_of(const std::string& marker) {
    std::ifstream in(MEMK_SOURCE);
    int n = 0;
    for (std::string line; std::getline(in, line);) {
        ++n;
        if (line.find(marker) != std::string::npos) return "emu_memory_kernels.cu:" + std::to_string(n);
    }
    return "no line with " + marker;
}

}  // namespace

TEST_CASE("conflict-free 4-byte shared accesses take 1 wavefront per request, a coalesced warp 4 sectors") {
    course::device_buffer<float> out(32, "out");
    const auto s = traced("conflict_free", memk::conflict_free, dim3(1), dim3(32), out.data());
    CHECK(s.traced);
    CHECK(s.memory.shared_store_requests == 1);
    CHECK(s.memory.shared_store_wavefronts == 1);
    CHECK(s.memory.shared_load_requests == 1);
    CHECK(s.memory.shared_load_wavefronts == 1);
    CHECK(s.memory.global_store_requests == 1);
    CHECK(s.memory.global_store_sectors == 4);
    CHECK(s.memory.global_load_requests == 0);
    CHECK(s.memory.barriers == 1);
    CHECK(s.memory.request_lanes == 3 * 32);
    CHECK(s.memory.partial_requests == 0);
    CHECK(s.hazard_count == 0);
}

TEST_CASE("bank conflicts: stride 2 is 2-way, a [32][32] column 32-way, a [32][33] column free") {
    course::device_buffer<float> out(32, "out");
    const auto two = traced("stride_two", memk::stride_two, dim3(1), dim3(32), out.data());
    CHECK(two.memory.shared_store_wavefronts == 2);
    CHECK(two.memory.shared_load_requests == 1);
    CHECK(two.memory.shared_load_wavefronts == 2);

    const auto col = traced("column", memk::column, dim3(1), dim3(32), out.data());
    CHECK(col.memory.shared_store_requests == 32);  // the rows: conflict-free
    CHECK(col.memory.shared_store_wavefronts == 32);
    CHECK(col.memory.shared_load_requests == 1);
    CHECK(col.memory.shared_load_wavefronts == 32);

    // The load's sample, for the HTML report: every lane on one bank, each on a word of its own.
    const emu::instruction_counters* load = nullptr;
    for (const auto& [place, c] : col.instructions)
        if (c.shared && c.op == 0) load = &c;
    REQUIRE(load != nullptr);
    CHECK(load->sample.cost == 32);
    CHECK(load->sample.lanes == 0xffffffffu);
    for (unsigned l = 1; l < 32; ++l) {
        CHECK(load->sample.address[l] / 4 % 32 == load->sample.address[0] / 4 % 32);
        CHECK(load->sample.address[l] - load->sample.address[l - 1] == 128);
    }

    const auto pad = traced("padded_column", memk::padded_column, dim3(1), dim3(32), out.data());
    CHECK(pad.memory.shared_store_wavefronts == 32);
    CHECK(pad.memory.shared_load_requests == 1);
    CHECK(pad.memory.shared_load_wavefronts == 1);
}

TEST_CASE("float4 accesses: 4 quarter-warp wavefronts, 16 sectors") {
    std::vector<float> host(128, 2.0f);
    course::device_buffer<float4> in(32, "in"), out(32, "out");
    in.upload(reinterpret_cast<const float4*>(host.data()), 32);
    const auto s = traced("float4_copy", memk::float4_copy, dim3(1), dim3(32), in.data(), out.data());
    CHECK(s.memory.shared_store_requests == 1);
    CHECK(s.memory.shared_store_wavefronts == 4);
    CHECK(s.memory.shared_load_requests == 1);
    CHECK(s.memory.shared_load_wavefronts == 4);
    CHECK(s.memory.global_load_requests == 1);
    CHECK(s.memory.global_load_sectors == 16);
    CHECK(s.memory.global_store_sectors == 16);
}

TEST_CASE("a strided global load touches a sector per lane") {
    auto in = upload(ones(32 * 32));
    course::device_buffer<float> out(32, "out");
    const auto s = traced("strided_global", memk::strided_global, dim3(1), dim3(32), in.data(), out.data());
    CHECK(s.memory.global_load_requests == 1);
    CHECK(s.memory.global_load_sectors == 32);
    CHECK(s.memory.global_store_sectors == 4);
}

TEST_CASE("__device__ variables are global memory, __constant__ ones neither, and never unwritten") {
    course::device_buffer<float> out(32, "out");
    const auto s = traced("grid_variables", memk::grid_variables, dim3(1), dim3(32), out.data());
    CHECK(s.hazard_count == 0);
    CHECK(s.memory.shared_load_requests == 0);
    CHECK(s.memory.global_load_requests == 2);  // g_table[t], g_scale
    CHECK(s.memory.global_load_sectors == 5);   // 128 aligned bytes, and one word for all lanes
    CHECK(s.memory.global_store_sectors == 4);
    std::vector<float> host(32);
    out.download(host.data(), host.size());
    CHECK(host[0] == 1.0f);
    CHECK(host[1] == 2.0f);
    CHECK(host[31] == 0.0f);
}

TEST_CASE("lab 1's divergent tree: most requests are partial") {
    auto in = upload(ones(64));
    course::device_buffer<float> out(1, "out");
    const auto s = traced("divergent_tree", memk::divergent_tree, dim3(1), dim3(64), in.data(), out.data());
    // Six steps of read, read, write; both warps work in the first five, warp 0 alone in
    // the last; then thread 0 reads partial[0] and writes the result.
    CHECK(s.memory.partial_requests == 3 * (2 * 5 + 1) + 2);
    CHECK(s.memory.barriers == 7);
    CHECK(s.hazard_count == 0);
    // The strip the HTML report draws: the step's two reads and its write, lanes per warp.
    const std::vector<emu::lane_step> strip = {
        {1, 0, 0x55555555u}, {1, 1, 0x55555555u}, {2, 0, 0x11111111u}, {2, 1, 0x11111111u},
        {3, 0, 0x01010101u}, {3, 1, 0x01010101u}, {4, 0, 0x00010001u}, {4, 1, 0x00010001u},
        {5, 0, 0x00000001u}, {5, 1, 0x00000001u}, {6, 0, 0x00000001u}};
    int with_strip = 0;
    for (const auto& [place, c] : s.instructions) {
        bool same = c.steps.size() == strip.size();
        for (std::size_t i = 0; same && i < strip.size(); ++i)
            same = c.steps[i].step == strip[i].step && c.steps[i].warp == strip[i].warp && c.steps[i].lanes == strip[i].lanes;
        with_strip += same;
    }
    CHECK(with_strip == 3);
}

TEST_CASE("the volatile warp tail races, between the tail's lines") {
    auto in = upload(ones(64));
    course::device_buffer<float> out(1, "out");
    const auto s = traced("volatile_tail", memk::volatile_tail, dim3(1), dim3(64), in.data(), out.data());
    REQUIRE(!s.hazards.empty());
    CHECK(s.hazard_count >= 1);
    const emu::hazard& h = s.hazards.front();
    CHECK(h.kind == "race");
    CHECK(h.message.find("kernel 'volatile_tail', block (0,0,0): data race on __shared__ memory: thread (0,0,0) reads "
                         "a word") != std::string::npos);
    CHECK(h.message.find("and thread (1,0,0) writes it") != std::string::npos);
    CHECK(h.message.find("no __syncwarp() either") != std::string::npos);
    // Lane 0 read v[t + 1] at the last step, before lane 1 wrote v[1] at the first.
    CHECK(places(h.message) == std::vector<std::string>{line_of("[tail-last]"), line_of("[tail-first]")});
}

TEST_CASE("the __syncwarp tail and a correct tree reduction have no hazards") {
    auto in = upload(ones(64));
    course::device_buffer<float> out(1, "out");
    CHECK(traced("syncwarp_tail", memk::syncwarp_tail, dim3(1), dim3(64), in.data(), out.data()).hazard_count == 0);

    const unsigned n = 65536, blocks = n / 512;
    auto big = upload(ones(n));
    course::device_buffer<float> sums(blocks, "out");
    const auto s = traced("tree_reduce", memk::tree_reduce, dim3(blocks), dim3(256), big.data(), sums.data(), n);
    CHECK(s.hazard_count == 0);
    CHECK(s.memory.barriers == 9 * blocks);
    CHECK(s.memory.global_load_requests == 2 * 8 * blocks);
    CHECK(s.memory.global_load_sectors == 2 * 8 * 4 * blocks);
    CHECK(s.memory.shared_load_wavefronts == s.memory.shared_load_requests);  // sequential addressing
    std::vector<float> host(blocks);
    sums.download(host.data(), blocks);
    CHECK(host[0] == 512.0f);
}

TEST_CASE("a missing __syncthreads between warps is a race") {
    course::device_buffer<float> out(64, "out");
    const auto s = traced("missing_barrier", memk::missing_barrier, dim3(1), dim3(64), out.data());
    // Thread 0 reads s[32] before thread 32 writes it (also a read of an unwritten word),
    // and writes s[0] before thread 32 reads it.
    REQUIRE(s.hazards.size() == 3);
    CHECK(s.hazard_count == 3);
    CHECK(s.hazards[0].kind == "uninitialized");
    CHECK(s.hazards[1].kind == "race");
    CHECK(s.hazards[1].message.find("thread (0,0,0) reads a word") != std::string::npos);
    CHECK(s.hazards[1].message.find("and thread (32,0,0) writes it") != std::string::npos);
    CHECK(s.hazards[1].message.find("no __syncwarp()") == std::string::npos);  // two warps: only a barrier orders them
    CHECK(places(s.hazards[1].message) == std::vector<std::string>{line_of("[mb-read]"), line_of("[mb-write]")});
    CHECK(s.hazards[2].kind == "race");
    CHECK(s.hazards[2].message.find("thread (0,0,0) writes a word") != std::string::npos);
    CHECK(s.hazards[2].message.find("and thread (32,0,0) reads it") != std::string::npos);
    CHECK(places(s.hazards[2].message) == std::vector<std::string>{line_of("[mb-write]"), line_of("[mb-read]")});
}

TEST_CASE("shared memory is poisoned at each block's start") {
    course::device_buffer<float> out(128, "out");
    const auto s = traced("first_block_writes", memk::first_block_writes, dim3(2), dim3(64), out.data());
    REQUIRE(s.hazards.size() == 1);
    CHECK(s.hazard_count == 1);
    CHECK(s.hazards[0].kind == "uninitialized");
    CHECK(s.hazards[0].message.find("kernel 'first_block_writes', block (1,0,0), thread (0,0,0): reads __shared__ "
                                    "memory that no thread of its block has written") != std::string::npos);
    CHECK(places(s.hazards[0].message) == std::vector<std::string>{line_of("[fbw-read]")});
}

TEST_CASE("shared atomics do not race with each other") {
    course::device_buffer<unsigned> out(1, "out");
    const auto s = traced("shared_atomics", memk::shared_atomics, dim3(1), dim3(64), out.data());
    CHECK(s.hazard_count == 0);
    unsigned host = 0;
    out.download(&host, 1);
    CHECK(host == 64);
}

TEST_CASE("tracing off counts nothing but launches") {
    course::device_buffer<float> out(32, "out");
    emu::reset_launch_stats();
    emu::launch("conflict_free", memk::conflict_free, dim3(1), dim3(32), out.data());
    const auto s = emu::launch_stats()["conflict_free"];
    CHECK(s.launches == 1);
    CHECK(!s.traced);
    CHECK(s.memory.shared_load_requests == 0);
}
