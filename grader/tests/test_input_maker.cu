// The inputs made by the GPU worker's kernel (worker/input_maker.cu) against the host's:
// every kind, sizes around a warp, a block and a thread's share, plain sums and records,
// bit for bit, with the same exact sums, and nothing written past the input. Built twice:
// for the GPU (unit.input_maker.gpu: exits 77, skipped, without one, never a silent pass),
// and on the CPU emulator (unit.input_maker, through test_input_maker_emulated.cpp), which
// runs the same kernel on smaller sizes, so that CI checks its indexing and its sums.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "course/device_buffer.hpp"
#include "inputs/inputs.hpp"
#include "inputs/perturbation.hpp"
#include "worker/input_maker.hpp"

namespace {

using course::input_kind;

constexpr std::uint64_t seed = 20261207;

void compare(input_kind kind, std::size_t n, unsigned width) {
    CAPTURE(course::to_string(kind));
    CAPTURE(n);
    CAPTURE(width);
    const std::size_t count = n * width;
    constexpr std::size_t guard = 64;  // words after the input, which nothing may write
    course::device_buffer<float> buf(count + guard, "input");
    CUDA_CHECK(cudaMemset(buf.data() + count, 0x5A, guard * sizeof(float)));
    const course::component_sums made = course::make_input_by_kernel(kind, seed, buf.data(), n, width);
    std::vector<float> back(count + guard);
    buf.download(back.data(), count + guard);
    const course::host_floats host = course::make_input(kind, seed, count);
    CHECK(std::memcmp(back.data(), host.data(), count * sizeof(float)) == 0);
    const std::vector<unsigned char> untouched(guard * sizeof(float), 0x5A);
    CHECK(std::memcmp(back.data() + count, untouched.data(), untouched.size()) == 0);

    const course::component_sums want = course::sum_components(host.data(), n, width);
    REQUIRE(made.sum.size() == width);
    REQUIRE(made.sum_abs.size() == width);
    for (unsigned c = 0; c < width; ++c) {
        if (course::is_integer_valued(kind)) {  // exact in double in any order
            CHECK(made.sum[c] == want.sum[c]);
            CHECK(made.sum_abs[c] == want.sum_abs[c]);
        } else {  // double rounding in another order: far below any float tolerance
            CHECK(std::fabs(made.sum[c] - want.sum[c]) <= 1e-12 * want.sum_abs[c]);
            CHECK(std::fabs(made.sum_abs[c] - want.sum_abs[c]) <= 1e-12 * want.sum_abs[c]);
        }
    }
    // The same input always gets the same figures (no atomics, a fixed order).
    const course::component_sums again = course::make_input_by_kernel(kind, seed, buf.data(), n, width);
    CHECK(again.sum == made.sum);
    CHECK(again.sum_abs == made.sum_abs);
}

}  // namespace

TEST_CASE("input_maker: every kind made on the GPU is the host's input, with its sums") {
    for (const auto kind : {input_kind::random, input_kind::ones, input_kind::integers, input_kind::cancellation,
                            input_kind::index}) {
        // 1, a warp's edges, a block's, one record a thread (up to 65536) and past it;
        // on the GPU also 2^20 - 1 and 2^25 + 7.
        for (const std::size_t n : {1, 31, 33, 257, 4097, 65536, 65537, 131073}) compare(kind, n, 1);
#if !defined(COURSE_EMULATE)
        for (const std::size_t n : {1048575, 33554439}) compare(kind, n, 1);
#endif
        for (const std::size_t n : {1, 33, 16385}) compare(kind, n, 8);  // lab 5's records
#if !defined(COURSE_EMULATE)
        compare(kind, 4194311, 8);
#endif
    }
}

TEST_CASE("input_maker: a record width that is no power of two, and one past the kernel's (uploaded)") {
    for (const unsigned width : {3u, 64u}) compare(input_kind::cancellation, 1000, width);
}

int main(int argc, char** argv) {
    int devices = 0;  // the emulator has one
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::puts("no GPU: skipped");
        return 77;
    }
    doctest::Context context(argc, argv);
    return context.run();
}
