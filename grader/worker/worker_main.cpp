#include "worker/worker_main.hpp"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "course/cuda_check.hpp"
#include "worker/correctness.hpp"
#include "worker/device_info.hpp"
#include "worker/events.hpp"
#include "worker/problem.hpp"
#include "worker/sandbox.hpp"
#include "worker/transpose_case.hpp"
#if !defined(COURSE_EMULATE)
#include "worker/timing.hpp"
#else
#include "emu/emu_stats.hpp"
#endif

namespace course {

namespace {

constexpr int exit_ok = 0;
constexpr int exit_usage = 2;
constexpr int exit_sticky = 3;

#if defined(COURSE_EMULATE)
constexpr const char* backend_name = "emulated";
#else
constexpr const char* backend_name = "gpu";
#endif

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

const part* find_part(const lab_parts& parts, const std::string& id) {
    for (const auto& p : parts)
        if (p.id == id) return &p;
    return nullptr;
}

struct loaded_lab {
    lab_parts student, reference, baseline;
};

const part* baseline_for(const lab_config& cfg, const loaded_lab& lab, const std::string& id) {
    if (cfg.baseline_by_id) return find_part(lab.baseline, id);
    return lab.baseline.empty() ? nullptr : &lab.baseline.front();
}

// Batch grading links each submission against a template build; it names the
// submission's own source and object through the environment.
const char* env_or(const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0' ? v : fallback;
}

nlohmann::json describe(const lab_config& cfg, const loaded_lab& lab, const device_info& device) {
    nlohmann::json parts = nlohmann::json::array();
    for (const auto& p : lab.student) {
        const part* ref = find_part(lab.reference, p.id);
        const part* base = baseline_for(cfg, lab, p.id);
        parts.push_back({{"id", p.id},
                         {"title", p.title},
                         {"kernel", p.kernel},
                         {"kind", to_string(p.kind)},
                         {"elements_per_block", p.shape.elements_per_block()},
                         {"record_len", p.record_len},
                         {"hint", p.hint},
                         {"reference_kernel", ref ? ref->kernel : ""},
                         {"baseline_kernel", base ? base->kernel : ""}});
    }
    return {{"event", "hello"},         {"lab", cfg.lab},
            {"backend", backend_name},  {"device", device},
            {"parts", parts},           {"student_source", env_or("COURSE_STUDENT_SOURCE", cfg.student_source)},
            {"student_object", env_or("COURSE_STUDENT_OBJECT", cfg.student_object)}};
}

std::vector<const part*> select_parts(const lab_parts& parts, const std::string& ids) {
    std::vector<const part*> out;
    for (const auto& id : split(ids)) {
        const part* p = find_part(parts, id);
        if (p == nullptr) throw std::invalid_argument("no part " + id + " in this lab");
        out.push_back(p);
    }
    if (ids.empty())
        for (const auto& p : parts) out.push_back(&p);
    return out;
}

int run_correctness_phase(const std::vector<const part*>& parts, correctness_job job) {
    for (const part* p : parts) {
        job.target = p;
#if defined(COURSE_EMULATE)
        emu::reset_launch_stats();
#endif
        const correctness_summary s = run_correctness(job);
        nlohmann::json verdict = {{"event", "part_correctness"},
                                  {"part", p->id},
                                  {"passed", s.passed},
                                  {"cases", s.cases},
                                  {"failed", s.failed},
                                  {"sticky", s.sticky}};
#if defined(COURSE_EMULATE)
        // Only this part's kernel ran since the reset: the emulator's answer to the
        // uses_shuffle check, which on a GPU reads the SASS instead.
        const auto stats = emu::launch_stats();
        const auto it = stats.find(p->kernel);
        verdict["warp_shuffles"] = it == stats.end() ? 0 : it->second.warp_shuffles;
#endif
        events().emit(verdict);
        if (s.sticky) return exit_sticky;
    }
    return exit_ok;
}

}  // namespace

int worker_main(int argc, char** argv, const lab_config& config) {
    CLI::App app{std::string("Worker for ") + config.lab + " (" + backend_name +
                 "): runs kernels for the grader and reports JSON events."};
    int events_fd = 1;
    std::string part_ids, inputs = "random,ones,integers,cancellation", sizes, record_sizes, shapes;
    std::uint64_t seed = 1;
    double tolerance_c = 3;
    std::size_t n = 1u << 25, records = 1u << 24;
    std::string shape = "8192x8192", benchmark_out;
    int rounds = 21, warmup = 1;
    std::size_t flush_bytes = 256u << 20;

    app.add_option("--events-fd", events_fd, "File descriptor for JSON events (default: stdout)");
    std::string sandbox = "strict";
    app.add_option("--sandbox", sandbox, "strict, relaxed (under ncu or compute-sanitizer) or off")
        ->check(CLI::IsMember({"strict", "relaxed", "off"}));
    app.require_subcommand(1);
    auto* describe_cmd = app.add_subcommand("describe", "Print the device and the lab's parts");
    auto* correct_cmd = app.add_subcommand("correctness", "Run the correctness suites");
    auto* timing_cmd = app.add_subcommand("timing", "Time naive, reference and student kernels (GPU only)");
    auto* profile_cmd = app.add_subcommand("profile", "Run one version of a part once, for a profiler to watch");
    std::string version = "student";
    profile_cmd->add_option("--parts", part_ids, "The part id")->required();
    profile_cmd->add_option("--version", version, "student, reference or baseline")
        ->check(CLI::IsMember({"student", "reference", "baseline"}));
    profile_cmd->add_option("--seed", seed, "Seed for the input");
    for (auto* cmd : {correct_cmd, timing_cmd}) {
        cmd->add_option("--parts", part_ids, "Comma-separated part ids (default: all)");
        cmd->add_option("--seed", seed, "Seed for the inputs");
        cmd->add_option("--tolerance-c", tolerance_c, "c in c * ceil(log2 n) * 2^-24 * sum|x|");
    }
    correct_cmd->add_option("--inputs", inputs, "Reduction input kinds");
    correct_cmd->add_option("--sizes", sizes, "Comma-separated sizes")->required();
    correct_cmd->add_option("--record-sizes", record_sizes, "Comma-separated record counts (record sums)");
    correct_cmd->add_option("--shapes", shapes, "Comma-separated matrix shapes RxC");
    timing_cmd->add_option("--n", n, "Reduction size");
    timing_cmd->add_option("--shape", shape, "Transpose shape RxC");
    timing_cmd->add_option("--records", records, "Record count (lab 5 record sums)");
    timing_cmd->add_option("--rounds", rounds, "Interleaved rounds");
    timing_cmd->add_option("--warmup", warmup, "Warm-up runs of each version");
    timing_cmd->add_option("--flush-bytes", flush_bytes, "Bytes of the L2 flush buffer");
    timing_cmd->add_option("--benchmark-out", benchmark_out, "Write Google Benchmark JSON here");
    CLI11_PARSE(app, argc, argv);
    set_events_fd(events_fd);

    try {
        int devices = 0;
        const cudaError_t status = cudaGetDeviceCount(&devices);
        if (status != cudaSuccess || devices == 0) {
            const bool no_driver = status == cudaErrorInsufficientDriver || status == cudaErrorNoDevice;
            const std::string why = status != cudaSuccess ? cudaGetErrorString(status) : "no device";
            events().emit({{"event", "error"},
                           {"message", no_driver || devices == 0 ? std::string("no NVIDIA GPU or driver found")
                                                                 : "the GPU cannot be used: " + why}});
            return exit_usage;
        }
        const device_info device = query_device();
        loaded_lab lab{config.student(), config.reference(), config.baseline()};
        // Create the CUDA context (device files, driver threads) while the worker is
        // still free; with the parts built, student code may run from here on.
        CUDA_CHECK(cudaFree(nullptr));
        sandbox_options box = sandbox_options_from_env(*parse_sandbox_mode(sandbox), device.emulated);
        if (!benchmark_out.empty()) box.output_files.push_back(benchmark_out);
        events().emit(sandbox_event(apply_sandbox(box)));

        if (*describe_cmd) {
            events().emit(describe(config, lab, device));
            return exit_ok;
        }
        if (*profile_cmd) {
            const part* p = find_part(version == "student"     ? lab.student
                                      : version == "reference" ? lab.reference
                                                               : lab.baseline,
                                      part_ids);
            if (version == "baseline" && !config.baseline_by_id) p = baseline_for(config, lab, part_ids);
            if (p == nullptr) throw std::invalid_argument("no part " + part_ids + " in the " + version + " version");
            // A size large enough to fill the GPU, small enough to profile in a second.
            problem_size size;
            size.n = 1u << 22;
            size.records = 1u << 18;
            size.rows = size.cols = 2048;
            const part* versions[3] = {p, p, p};
            const auto prob = make_problem(p->kind, size, versions, seed, tolerance_c);
            prob->run(*p);
            CUDA_CHECK(cudaDeviceSynchronize());
            events().emit({{"event", "profiled"}, {"part", p->id}, {"version", version}, {"problem", prob->label()}});
            return exit_ok;
        }
        const auto parts = select_parts(lab.student, part_ids);
        if (*correct_cmd) {
            correctness_job job;
            for (const auto& s : split(sizes)) job.sizes.push_back(std::stoull(s));
            for (const auto& s : split(record_sizes)) job.record_sizes.push_back(std::stoull(s));
            job.shapes = split(shapes);
            for (const auto& name : split(inputs)) {
                const auto kind = parse_input_kind(name);
                if (!kind) throw std::invalid_argument("unknown input kind " + name);
                job.inputs.push_back(*kind);
            }
            job.seed = seed;
            job.tolerance_c = tolerance_c;
            return run_correctness_phase(parts, job);
        }
#if defined(COURSE_EMULATE)
        events().emit({{"event", "error"}, {"message", "the CPU emulator cannot time kernels"}});
        return exit_usage;
#else
        timing_job job;
        job.lab = config.lab;
        for (const part* p : parts) {
            timed_part tp;
            tp.versions[0] = baseline_for(config, lab, p->id);
            tp.versions[1] = find_part(lab.reference, p->id);
            tp.versions[2] = p;
            if (!tp.versions[0] || !tp.versions[1]) throw std::logic_error("part " + p->id + " has no reference");
            job.parts.push_back(tp);
        }
        job.size.n = n;
        job.size.records = records;
        if (!parse_shape(shape, job.size.rows, job.size.cols)) throw std::invalid_argument("bad --shape " + shape);
        job.rounds = rounds;
        job.warmup = warmup;
        job.flush_bytes = flush_bytes;
        job.seed = seed;
        job.tolerance_c = tolerance_c;
        job.benchmark_out = benchmark_out;
        run_timing(job, device);
        return exit_ok;
#endif
    } catch (const cuda_error& e) {
        events().emit({{"event", "error"}, {"message", e.what()}, {"sticky", e.sticky()}});
        return e.sticky() ? exit_sticky : exit_usage;
    } catch (const std::exception& e) {
        events().emit({{"event", "error"}, {"message", e.what()}});
        return exit_usage;
    }
}

}  // namespace course
