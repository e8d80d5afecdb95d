// The course's benchmark suite (`make bench`): every reference kernel of labs 1-5,
// cub::DeviceReduce::Sum and the bandwidth roof, timed with CUDA events, the L2 flushed
// before every sample, the median of repeated samples. Google Benchmark writes the JSON
// that scripts/plot_results.py draws.
#include <benchmark/benchmark.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "inputs/inputs.hpp"
#include "core/stats.hpp"
#include "course/device_buffer.hpp"
#include "course/event_timer.hpp"
#include "manifest/bench_labs.hpp"
#include "roof_kernels.cuh"
#include "worker/device_info.hpp"
#include "worker/part.hpp"

namespace {

struct entry {
    std::string group;   // reduce, records, transpose
    std::string key;     // lab3.C, cub, memcpy, read_only, transpose_naive, lab5.B.unpadded
    std::string kernel;  // what the plot labels it with
    std::size_t size = 0;  // n, records, or the matrix side
    double bytes = 0;
    std::function<void()> run;
    std::string naive_key;  // the entry whose median is this size's "x naive" baseline
};

std::string slug(const std::string& s) {
    std::string out;
    for (char ch : s) out += std::isalnum(static_cast<unsigned char>(ch)) ? static_cast<char>(std::tolower(ch)) : '-';
    return out;
}

// One launch of a course part (its kind's launch_args).
void reduce(const course::part& p, const float* in, float* out, std::size_t n, float* scratch) {
    course::launch_args a;
    a.in = in;
    a.out = out;
    a.scratch = scratch;
    a.n = n;
    p.launch(a);
}

void transpose(const course::part& p, const float* in, float* out, unsigned side) {
    course::launch_args a;
    a.in = in;
    a.out = out;
    a.rows = a.cols = side;
    p.launch(a);
}

std::string today() {
    const std::time_t t = std::time(nullptr);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
    return buf;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Benchmarks every reference kernel of the course against CUB and the bandwidth roof (GPU only)."};
    std::string out_dir = "bench/results", out_file;
    int reps = 21, max_log2 = 28;
    app.add_option("--out-dir", out_dir, "Folder for <device>.json");
    app.add_option("--out", out_file, "Write the JSON here instead");
    app.add_option("--repetitions", reps, "Samples per kernel and size (the median is reported)")->check(CLI::Range(3, 1000));
    app.add_option("--max-log2", max_log2, "Largest reduction: 2^this floats")->check(CLI::Range(20, 28));
    CLI11_PARSE(app, argc, argv);

    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::cerr << "course_bench: no NVIDIA GPU found. The benchmarks time kernels on a GPU; on this machine,\n"
                     "  `./grade labN` checks correctness on the CPU emulator instead.\n";
        return 2;
    }
    try {
        const course::device_info dev = course::query_device();
        if (out_file.empty()) {
            std::filesystem::create_directories(out_dir);
            out_file = out_dir + "/" + slug(dev.name) + ".json";
        }

        // Inputs: random floats, never zeros; one buffer serves every size.
        const std::size_t max_n = std::size_t{1} << max_log2;
        course::device_buffer<float> in(max_n + 64, "input");
        {
            const auto host = course::make_input(course::input_kind::random, 20261130, max_n);
            in.upload(host.data(), max_n);
        }
        course::device_buffer<float> out(8192 * 8192 + 64, "output");
        course::device_buffer<float> scratch((max_n / 256 + 4096) * 8, "partial sums");
        course::device_buffer<float> small_out(64, "result");
        course::device_buffer<unsigned char> flush(256u << 20, "L2 flush");
        course::device_buffer<unsigned char> copy_dst(256u << 20, "copy roof");
        const std::size_t cub_bytes = bench::cub_sum_temp_bytes(max_n);
        course::device_buffer<unsigned char> cub_temp(cub_bytes, "cub temp");

        course::event_timer timer;
        auto sample = [&](const std::function<void()>& run, int round) {
            CUDA_CHECK(cudaMemsetAsync(flush.data(), round & 0xFF, flush.size()));
            timer.start();
            run();
            timer.stop();
            return static_cast<double>(timer.elapsed_ms());
        };
        auto quick_median = [&](const std::function<void()>& run) {
            run();
            std::vector<double> ms;
            for (int i = 0; i < 7; ++i) ms.push_back(sample(run, i));
            return course::median(ms);
        };
        const double roof_gbps =
            2.0 * flush.size() /
            (quick_median([&] {
                 CUDA_CHECK(cudaMemcpyAsync(copy_dst.data(), flush.data(), flush.size(), cudaMemcpyDeviceToDevice));
             }) * 1e-3) /
            1e9;

        // Every lab of labs.json; lab 5's unpadded baseline is benchmarked beside its parts.
        const std::vector<std::pair<std::string, course::lab_parts>> labs = course::manifest::reference_parts();
        const course::lab_parts unpadded = lab5_baseline::parts();

        std::vector<entry> entries;
        for (int lg : {20, 22, 25, 28}) {
            if (lg > max_log2) continue;
            const std::size_t n = std::size_t{1} << lg;
            for (const auto& [lab, parts] : labs) {
                for (const auto& p : parts) {
                    if (p.kind != "reduction") continue;
                    const course::part* pp = &p;
                    entries.push_back({"reduce", lab + "." + p.id, p.kernel, n, 4.0 * n,
                                       [&, pp, n] { reduce(*pp, in.data(), small_out.data(), n, scratch.data()); },
                                       "lab1.A"});
                }
            }
            entries.push_back({"reduce", "cub", "cub::DeviceReduce::Sum", n, 4.0 * n,
                               [&, n] { bench::cub_sum(in.data(), small_out.data(), n, cub_temp.data(), cub_bytes); },
                               "lab1.A"});
            entries.push_back({"reduce", "read_only", "float4 read-only kernel", n, 4.0 * n,
                               [&, n] { bench::read_only(in.data(), n, small_out.data()); }, "lab1.A"});
        }
        for (int lg : {18, 20, 22, 24}) {
            const std::size_t records = std::size_t{1} << lg;
            if (records * 8 > max_n) continue;
            const course::part* padded = &labs[4].second[0];
            const course::part* plain = &unpadded[0];
            entries.push_back({"records", "lab5.A.unpadded", plain->kernel + " [256][8]", records, 32.0 * records,
                               [&, plain, records] { reduce(*plain, in.data(), small_out.data(), records, scratch.data()); },
                               "lab5.A.unpadded"});
            entries.push_back({"records", "lab5.A", padded->kernel + " [256][9]", records, 32.0 * records,
                               [&, padded, records] { reduce(*padded, in.data(), small_out.data(), records, scratch.data()); },
                               "lab5.A.unpadded"});
        }
        for (unsigned side : {1024u, 4096u, 8192u}) {
            const double bytes = 2.0 * 4.0 * side * side;
            const course::part* padded = &labs[4].second[1];
            const course::part* plain = &unpadded[1];
            entries.push_back({"transpose", "transpose_naive", "naive (no shared memory)", side, bytes,
                               [&, side] { bench::transpose_naive(in.data(), out.data(), side, side); },
                               "transpose_naive"});
            entries.push_back({"transpose", "lab5.B.unpadded", "tile[32][32]", side, bytes,
                               [&, plain, side] { transpose(*plain, in.data(), out.data(), side); },
                               "transpose_naive"});
            entries.push_back({"transpose", "lab5.B", "tile[32][33]", side, bytes,
                               [&, padded, side] { transpose(*padded, in.data(), out.data(), side); },
                               "transpose_naive"});
            entries.push_back({"transpose", "lab5.B.input_order", "tile[32][33], blocks in input order", side, bytes,
                               [&, side] { bench::transpose_padded_input_order(in.data(), out.data(), side, side); },
                               "transpose_naive"});
            entries.push_back({"transpose", "memcpy", "cudaMemcpy device to device", side, bytes,
                               [&, side] {
                                   CUDA_CHECK(cudaMemcpyAsync(out.data(), in.data(), 4ull * side * side,
                                                              cudaMemcpyDeviceToDevice));
                               },
                               "transpose_naive"});
        }

        // Each size's "x naive" counter needs the naive kernel's time first.
        std::map<std::string, double> naive_ms;
        for (const auto& e : entries) {
            const std::string id = e.group + "/" + e.naive_key + "/" + std::to_string(e.size);
            if (e.key == e.naive_key) naive_ms[id] = quick_median(e.run);
        }

        std::vector<std::string> args = {argv[0], "--benchmark_out=" + out_file, "--benchmark_out_format=json"};
        std::vector<char*> cargs;
        for (auto& a : args) cargs.push_back(a.data());
        int cargc = static_cast<int>(cargs.size());
        benchmark::Initialize(&cargc, cargs.data());
        benchmark::AddCustomContext("device", dev.name);
        benchmark::AddCustomContext("sms", std::to_string(dev.sms));
        benchmark::AddCustomContext("l2_bytes", std::to_string(dev.l2_bytes));
        benchmark::AddCustomContext("compute_capability", dev.compute_capability);
        benchmark::AddCustomContext("cuda_runtime", std::to_string(dev.runtime_version));
        benchmark::AddCustomContext("cuda_driver", std::to_string(dev.driver_version));
        benchmark::AddCustomContext("peak_gbps", fmt::format("{:.0f}", dev.peak_gbps));
        benchmark::AddCustomContext("copy_roof_gbps", fmt::format("{:.0f}", roof_gbps));
        benchmark::AddCustomContext("date", today());

        std::map<std::string, std::vector<double>> samples;
        for (const auto& e : entries) {
            const std::string name = e.group + "/" + e.key + "/" + std::to_string(e.size);
            const double base = naive_ms[e.group + "/" + e.naive_key + "/" + std::to_string(e.size)];
            benchmark::RegisterBenchmark(name.c_str(), [&, e, name, base](benchmark::State& state) {
                double ms = 0;
                for (auto _ : state) {
                    ms = sample(e.run, static_cast<int>(samples[name].size()));
                    state.SetIterationTime(ms * 1e-3);
                    samples[name].push_back(ms);
                }
                state.SetLabel(e.kernel);
                state.SetBytesProcessed(static_cast<std::int64_t>(e.bytes) * state.iterations());
                state.counters["x_naive"] = base / ms;
                state.counters["pct_of_copy_roof"] = 100.0 * (e.bytes / (ms * 1e-3) / 1e9) / roof_gbps;
            })
                ->UseManualTime()
                ->Iterations(1)
                ->Repetitions(reps)
                ->ReportAggregatesOnly(true)
                ->Unit(benchmark::kMicrosecond);
        }
        benchmark::RunSpecifiedBenchmarks();
        benchmark::Shutdown();

        auto med = [&](const std::string& name) { return course::median(samples.at(name)); };
        // The course's benchmark targets for its references (docs/results.md).
        auto verdict = [](double pct, int target) {
            return fmt::format("target >= {}%: {}", target, pct >= target ? "met" : "MISSED");
        };
        std::cout << fmt::format("\nDevice {} ({} SMs), copy roof {:.0f} GB/s, datasheet peak {:.0f} GB/s\n",
                                 dev.name, dev.sms, roof_gbps, dev.peak_gbps);
        for (int lg : {25, 28}) {
            if (lg > max_log2) continue;
            const std::string n = std::to_string(std::size_t{1} << lg);
            const double ours = med("reduce/lab4.B/" + n), cub = med("reduce/cub/" + n);
            std::cout << fmt::format("lab4 reference vs cub::DeviceReduce::Sum at 2^{}: {:.4f} ms vs {:.4f} ms = {:.1f}% "
                                     "of CUB's throughput ({})\n",
                                     lg, ours, cub, 100.0 * cub / ours, verdict(100.0 * cub / ours, lg == 25 ? 95 : 100));
        }
        const double pad = med("transpose/lab5.B/8192"), copy = med("transpose/memcpy/8192");
        const double other_order = med("transpose/lab5.B.input_order/8192");
        std::cout << fmt::format("lab5 padded transpose at 8192^2 with its blocks in input order: {:.1f}% of the "
                                 "device-to-device copy\n",
                                 100.0 * copy / other_order);
        std::cout << fmt::format("lab5 padded transpose at 8192^2: {:.0f} GB/s = {:.1f}% of the device-to-device copy "
                                 "({})\n",
                                 2.0 * 4 * 8192.0 * 8192 / (pad * 1e-3) / 1e9, 100.0 * copy / pad,
                                 verdict(100.0 * copy / pad, 90));
        std::cout << "JSON: " << out_file << "\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "course_bench: " << e.what() << "\n";
        return 2;
    }
}
