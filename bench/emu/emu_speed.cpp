// The CPU emulator's speed (`make emu-bench`): the two reductions the peer CPU runtimes were
// measured on (docs/emulator.md, "Speed"), every pass down to one sum, at 2^16, 2^18 and 2^20
// floats, with the counters off (counters:0: hazards and requests not recorded), on (1: as
// a grade's drawn cases record them) and hazards only (2: traced, no requests assembled, as
// a grade runs every other case), on one core and on every core this process may use (cores:0;
// the `cores` counter says how many: common/emu/block_pool.hpp). Each configuration's sum is
// checked against a double-precision sum before it is timed.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "emu/emu_stats.hpp"
#include "emu_speed_kernels.cuh"

namespace {

using kernel_fn = void (*)(const float*, float*, unsigned);

struct reduction {
    course::device_buffer<float> in, a, b;
    std::size_t n;
    double expected = 0;

    explicit reduction(std::size_t count) : in(count, "input"), a(count / 256 + 1, "partials"),
                                            b(count / 256 + 1, "partials"), n(count) {
        std::mt19937 rng(12345);
        std::uniform_real_distribution<float> u(0.0f, 1.0f);
        std::vector<float> host(n);
        for (auto& x : host) {
            x = u(rng);
            expected += x;
        }
        in.upload(host.data(), n);
    }

    // Every pass, as the grader's driver launches them; returns the sum.
    float run(const char* name, kernel_fn kernel) {
        const float* src = in.data();
        float* dst = a.data();
        unsigned count = static_cast<unsigned>(n);
        while (true) {
            const unsigned blocks = (count + emu_speed::block_threads - 1) / emu_speed::block_threads;
            emu::launch(name, kernel, dim3(blocks), dim3(emu_speed::block_threads), src, dst, count);
            if (blocks == 1) break;
            src = dst;
            dst = dst == a.data() ? b.data() : a.data();
            count = blocks;
        }
        float sum = 0;
        CUDA_CHECK(cudaMemcpy(&sum, dst, sizeof sum, cudaMemcpyDeviceToHost));
        return sum;
    }
};

void bench(benchmark::State& state, const char* name, kernel_fn kernel) {
    const std::size_t n = static_cast<std::size_t>(state.range(0));
    const bool counters = state.range(1) != 0;
    const bool requests = state.range(1) == 1;
    reduction r(n);
    emu::set_cores(static_cast<unsigned>(state.range(2)));  // 0: all of them
    emu::set_tracing(counters);
    emu::set_counting(requests);
    const float check = r.run(name, kernel);
    if (std::fabs(check - r.expected) > 1e-5 * r.expected) {
        emu::set_tracing(false);
        emu::set_counting(true);
        emu::set_cores(0);
        state.SkipWithError(("wrong sum: " + std::to_string(check) + ", expected " + std::to_string(r.expected)).c_str());
        return;
    }
    for (auto _ : state) benchmark::DoNotOptimize(r.run(name, kernel));
    emu::set_tracing(false);
    emu::set_counting(true);
    emu::reset_launch_stats();
    state.SetLabel(!counters ? "counters off" : requests ? "counters on" : "hazards only");
    state.counters["floats"] = static_cast<double>(n);
    state.counters["cores"] = static_cast<double>(emu::cores());
    emu::set_cores(0);
}

void args(benchmark::internal::Benchmark* b) {
    b->ArgNames({"n", "counters", "cores"})->ArgsProduct({{1 << 16, 1 << 18, 1 << 20}, {0, 1, 2}, {1, 0}});
    b->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
}

BENCHMARK_CAPTURE(bench, tree_sequential, "tree_sequential", emu_speed::tree_sequential)->Apply(args);
BENCHMARK_CAPTURE(bench, warp_shuffle, "warp_shuffle", emu_speed::warp_shuffle)->Apply(args);

}  // namespace

BENCHMARK_MAIN();
