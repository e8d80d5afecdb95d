// `host_inputs`: the host work a GPU grader's workers did for a reduction lab's inputs before
// they made them on the GPU (grader/worker/input_maker.hpp), on this machine's cores as the
// worker used them: the correctness worker's every input kind at every GPU size of the
// default policy, made and summed in double (the input cache), and the timing worker's
// timed input and fresh input, made, summed and copied for each further part of the lab
// (lab 3: three parts). No GPU needed; the CPU time is what a grading sharing a host paid.
#include <benchmark/benchmark.h>

#include <ctime>
#include <vector>

#include "core/policy.hpp"
#include "inputs/input_cache.hpp"
#include "inputs/inputs.hpp"
#include "inputs/perturbation.hpp"

namespace {

double cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

const course::policy& defaults() {
    static const course::policy p = course::load_policy("");
    return p;
}

// Reports the process's CPU seconds per iteration beside the wall time.
template <typename Body>
void measure(benchmark::State& state, const Body& body) {
    double cpu = 0;
    for (auto _ : state) {
        const double start = cpu_seconds();
        body();
        cpu += cpu_seconds() - start;
    }
    state.counters["cpu_s"] = benchmark::Counter(cpu / static_cast<double>(state.iterations()));
}

void correctness_inputs(benchmark::State& state) {
    const course::policy& p = defaults();
    measure(state, [&] {
        course::input_cache cache;
        for (const auto& name : p.reduction_inputs) {
            const course::input_kind kind = *course::parse_input_kind(name);
            for (const auto& size : p.problem("reduction").sizes) {
                const std::size_t n = size.count;
                benchmark::DoNotOptimize(cache.sums(kind, course::case_seed(7, kind, n), n, 1).sum[0]);
            }
        }
    });
}

void timing_inputs(benchmark::State& state) {
    const std::size_t n = defaults().problem("reduction").timed.count;
    const auto parts = static_cast<std::size_t>(state.range(0));
    measure(state, [&] {
        std::vector<std::pair<course::host_floats, course::component_sums>> inputs;
        for (const std::uint64_t seed : {1u, 2u}) {  // the timed input and the fresh one
            course::host_floats values = course::make_input(course::input_kind::random, seed, n);
            course::component_sums sums = course::sum_components(values.data(), n, 1);
            inputs.emplace_back(std::move(values), std::move(sums));
        }
        std::vector<decltype(inputs)> copies(parts - 1, inputs);  // the later parts' own
        benchmark::DoNotOptimize(copies.data());
    });
}

}  // namespace

BENCHMARK(correctness_inputs)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(timing_inputs)->Arg(3)->ArgName("parts")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
