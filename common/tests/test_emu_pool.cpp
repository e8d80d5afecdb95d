// A large launch's blocks run over several processes (common/emu/block_pool.hpp): what it
// reports must be what one process reports, and what blocks share on a GPU (device memory,
// __device__ variables, atomics) must be shared between the processes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "emu/emu_stats.hpp"
#include "emu_memory_kernels.cuh"

namespace {

constexpr unsigned blocks = 256, threads = 128;  // 32768 threads: enough for a pool

// What a traced launch of racy_blocks reports on `cores` processes.
emu::kernel_stats racy_on(unsigned cores) {
    course::device_buffer<float> out(blocks * threads, "out");
    emu::set_cores(cores);
    emu::reset_launch_stats();
    emu::set_tracing(true);
    emu::launch("racy_blocks", memk::racy_blocks, dim3(blocks), dim3(threads), out.data());
    emu::set_tracing(false);
    emu::set_cores(0);
    return emu::launch_stats()["racy_blocks"];
}

// The message of the error a launch of write_past_from stops with on `cores` processes.
std::string first_error_on(unsigned cores, unsigned first_bad, unsigned second_bad) {
    course::device_buffer<float> out(blocks * threads, "out");
    emu::set_cores(cores);
    std::string message = "no error";
    try {
        emu::launch("write_past_from", memk::write_past_from, dim3(blocks), dim3(threads), out.data(), first_bad,
                    second_bad);
    } catch (const emu::kernel_error& e) {
        message = e.what();
    }
    emu::set_cores(0);
    return message;
}

std::vector<float> ones(std::size_t n) { return std::vector<float>(n, 1.0f); }

}  // namespace

TEST_CASE("a launch over three processes counts and finds what one process does, in block order") {
    const emu::kernel_stats one = racy_on(1), three = racy_on(3);
    CHECK(one.launches == 1);
    CHECK(three.launches == 1);
    CHECK(one.memory.warps == blocks * 4);
    CHECK(three.memory.warps == blocks * 4);
    CHECK(one.memory.shared_store_requests == blocks * 4 * 2);
    CHECK(three.memory.shared_store_requests == blocks * 4 * 2);
    CHECK(one.memory.shared_store_wavefronts == blocks * 4 * 4);  // each store 2-way
    CHECK(three.memory.shared_store_wavefronts == blocks * 4 * 4);
    CHECK(three.memory.shared_epochs == one.memory.shared_epochs);
    CHECK(three.memory.global_store_sectors == one.memory.global_store_sectors);
    CHECK(three.memory.partial_requests == blocks * 4);
    CHECK(three.memory.partial_requests == one.memory.partial_requests);
    REQUIRE(three.instructions.size() == one.instructions.size());
    for (const auto& [place, c] : one.instructions) {
        CAPTURE(place);
        REQUIRE(three.instructions.count(place) == 1);
        const emu::instruction_counters& d = three.instructions.at(place);
        CHECK(d.requests == c.requests);
        CHECK(d.cost == c.cost);
        CHECK(d.ideal == c.ideal);
        CHECK(d.lanes == c.lanes);
        CHECK(d.excess_warps == c.excess_warps);
        CHECK(d.sample.cost == c.sample.cost);
        CHECK(d.sample.lanes == c.sample.lanes);
        CHECK(std::equal(std::begin(d.sample.address), std::end(d.sample.address), std::begin(c.sample.address)));
        CHECK(d.steps.size() == c.steps.size());
    }
    // Each pair of instructions once, found first in block 0: thread 0 reads a word that no
    // thread has written yet, which thread 32 writes next; thread 96 reads one thread 0 wrote.
    CHECK(one.hazard_count == 3);
    CHECK(three.hazard_count == 3);
    REQUIRE(three.hazards.size() == one.hazards.size());
    for (std::size_t i = 0; i < one.hazards.size(); ++i) {
        CHECK(three.hazards[i].kind == one.hazards[i].kind);
        CHECK(three.hazards[i].message == one.hazards[i].message);
    }
    REQUIRE(three.hazards.size() == 3);
    CHECK(three.hazards[0].kind == "uninitialized");
    CHECK(three.hazards[1].kind == "race");
    CHECK(three.hazards[0].message.find("kernel 'racy_blocks', block (0,0,0)") != std::string::npos);
}

TEST_CASE("the error reported is the first block's in launch order, whichever process ran it") {
    const std::string one = first_error_on(1, 100, 200), three = first_error_on(3, 100, 200);
    CHECK(one.find("kernel 'write_past_from', block (100,0,0), thread (0,0,0): out-of-bounds write") == 0);
    CHECK(three == one);
    // Only the last process's blocks fail: its report carries the error.
    const std::string last = first_error_on(3, 250, 251);
    CHECK(last.find("kernel 'write_past_from', block (250,0,0), thread (0,0,0): out-of-bounds write") == 0);
    CHECK(first_error_on(3, blocks, blocks) == "no error");
}

TEST_CASE("a block that spins for ever in another process stops at the watchdog") {
    course::device_buffer<int> flag(1, "flag");
    flag.fill_bytes(0);
    course::device_buffer<float> out(blocks * threads, "out");
    setenv("COURSE_EMU_WATCHDOG_SECONDS", "1", 1);
    emu::set_cores(3);
    std::string message = "no timeout";
    try {
        emu::launch("spin_from", memk::spin_from, dim3(blocks), dim3(threads), flag.data(), out.data(), 200u);
    } catch (const emu::kernel_timeout& e) {
        message = e.what();
    }
    emu::set_cores(0);
    unsetenv("COURSE_EMU_WATCHDOG_SECONDS");
    CHECK(message.find("kernel 'spin_from', block (200,0,0)") != std::string::npos);
}

TEST_CASE("__device__ variables and atomics are shared by every block, in any process") {
    const std::vector<float> host = ones(blocks * threads);
    course::device_buffer<float> in(host.size(), "in");
    in.upload(host.data(), host.size());
    course::device_buffer<float> partials(blocks, "partials"), out(1, "out");
    emu::set_cores(3);
    for (int launch = 0; launch < 2; ++launch) {  // the last block resets the counter
        out.fill_bytes(0);
        emu::launch("last_block_sum", memk::last_block_sum, dim3(blocks), dim3(threads), in.data(), partials.data(),
                    out.data());
        float sum = 0;
        out.download(&sum, 1);
        CHECK(sum == 32768.0f);
    }
    out.fill_bytes(0);
    emu::launch("atomic_sum", memk::atomic_sum, dim3(blocks), dim3(threads), in.data(), out.data());
    float sum = 0;
    out.download(&sum, 1);
    CHECK(sum == 32768.0f);
    emu::set_cores(0);
}

TEST_CASE("__shared__ memory starts every block zeroed, whatever block ran before it") {
    for (unsigned cores : {1u, 3u}) {
        CAPTURE(cores);
        course::device_buffer<float> out(blocks * threads, "out");
        out.fill_bytes(0xFF);
        emu::set_cores(cores);
        emu::launch("read_unwritten", memk::read_unwritten, dim3(blocks), dim3(threads), out.data());
        emu::set_cores(0);
        std::vector<float> host(blocks * threads);
        out.download(host.data(), host.size());
        unsigned zero = 0, untouched = 0;
        for (unsigned i = 0; i < host.size(); ++i) {
            if (host[i] == 0.0f) ++zero;
            if (std::isnan(host[i])) ++untouched;
        }
        CHECK(zero == blocks / 2 * threads);       // the odd blocks read zeros, never 1.0
        CHECK(untouched == blocks / 2 * threads);  // the even blocks wrote nothing to out
    }
}

TEST_CASE("a misaligned atomic stops the launch, as it faults on a GPU") {
    course::device_buffer<unsigned> out(2, "out");
    std::string message = "no error";
    try {
        emu::launch("misaligned_atomic", memk::misaligned_atomic, dim3(1), dim3(1), out.data());
    } catch (const emu::kernel_error& e) {
        message = e.what();
    }
    CHECK(message.find("kernel 'misaligned_atomic', block (0,0,0), thread (0,0,0): a misaligned atomic (4 bytes at an "
                       "address that is not a multiple of 4)") == 0);
}

TEST_CASE("the cores the emulator uses can be set, and 0 restores the default") {
    const unsigned initial = emu::cores();
    CHECK(initial >= 1);
    emu::set_cores(5);
    CHECK(emu::cores() == 5);
    emu::set_cores(1000);
    CHECK(emu::cores() == 64);
    emu::set_cores(0);
    CHECK(emu::cores() == initial);
}
