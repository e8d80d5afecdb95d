// `gpu_sharing`: what graders that share one GPU as separate processes cost each other.
// K processes (forked from a parent that never touches CUDA, each with its own context, as
// K graders per GPU have; never MPS clients, as the graders are not) make the GPU
// correctness inputs of the default policy and warm their kernels up, wait until all are
// ready, then run one kind of GPU work at once:
//   worker:  the correctness worker's cases of every reduction part of a lab's reference
//            (lab 3 unless --lab), as worker/kinds/reduction.cpp ran them until the GPU
//            worker made its inputs on the device (worker/input_maker.hpp): each case's
//            buffers made, poisoned, uploaded from pageable memory, run, read back and
//            freed, and the "random, changed" case at the largest sizes;
//   pinned:  the same, with the inputs page-locked (cudaHostRegister) before "go";
//   device:  the same cases as the GPU worker runs them now: each input made on the device
//            by the input kernel, with its sums (worker/input_maker.hpp);
//   lean:    the same cases as a worker could run them instead (lean_case below): one
//            synchronisation a case, no allocation and no upload from the host;
//   upload:  only the uploads, into a buffer made beforehand;
//   alloc:   only each case's three cudaMalloc and cudaFree;
//   kernels: only the launches, with a synchronisation after each, on buffers made beforehand;
//   context: only making a CUDA context (no CUDA call before "go"), as each of a grading's
//            worker processes does: its describe run, correctness, racecheck and timing.
// Each process does the same work whatever K is. Were the GPU shared perfectly, its seconds
// would stay as at K=1; were the processes' work run strictly by turns, they would grow
// K-fold: the "slowdown" column (median seconds over K=1's) says where each kind lies.
// The instructor guide ("Where the time goes now") says what it found, once it has run on a GPU.
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/grading_plan.hpp"
#include "core/policy.hpp"
#include "core/stats.hpp"
#include "course/device_buffer.hpp"
#include "inputs/input_cache.hpp"
#include "manifest/bench_labs.hpp"
#include "process/worker_process.hpp"
#include "inputs/perturbation.hpp"
#include "inputs/tolerance.hpp"
#include "worker/guarded_buffer.hpp"
#include "worker/reduction_case.hpp"

#include "forked_group.hpp"

namespace {

using course::input_kind;

struct one_case {
    const course::part* part;
    input_kind kind;
    std::size_t n;
    bool changed;  // the random case of a largest size, run again with a few elements changed
};

struct workload {
    std::vector<course::part> parts;
    std::vector<one_case> cases;
    double tolerance_c = 0;
};

// In a child only: a lab's parts() may ask CUDA about the device.
workload workload_of(const course::policy& pol, const std::string& lab) {
    workload w;
    for (const auto& [name, parts] : course::manifest::reference_parts())
        if (name == lab)
            for (const auto& p : parts)
                if (p.kind == "reduction") w.parts.push_back(p);
    if (w.parts.empty()) throw std::invalid_argument("no lab \"" + lab + "\" with reduction parts");
    const course::case_lists lists = course::cases_of(pol, false);
    const course::kind_cases& cases = lists.problems.at("reduction");
    std::vector<std::size_t> largest;
    for (const auto& s : cases.sizes) largest.push_back(s.count);
    std::sort(largest.rbegin(), largest.rend());
    largest.resize(std::min<std::size_t>(largest.size(), 3));  // as worker/kinds/reduction.cpp
    for (const auto& p : w.parts) {
        for (const auto& name : lists.inputs) {
            const input_kind kind = *course::parse_input_kind(name);
            for (const auto& s : cases.sizes)
                w.cases.push_back({&p, kind, s.count,
                                   kind == input_kind::random &&
                                       std::find(largest.begin(), largest.end(), s.count) != largest.end()});
        }
        for (const auto& s : cases.large) w.cases.push_back({&p, input_kind::random, s.count, false});
    }
    w.tolerance_c = pol.tolerance_c;
    return w;
}

void launch(const course::part& p, const float* in, float* out, float* scratch, std::size_t n) {
    course::launch_args a;
    std::tie(a.in, a.out, a.scratch, a.n) = std::tie(in, out, scratch, n);
    p.launch(a);
}

// Page-locked host memory (cudaMallocHost), so that copies from and to it are queued, not waited for.
struct page_locked {
    float* data = nullptr;
    explicit page_locked(std::size_t count) {
        if (count > 0) CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data), count * sizeof(float)));
    }
    ~page_locked() {
        if (data != nullptr) (void)cudaFreeHost(data);
    }
    page_locked(const page_locked&) = delete;
    page_locked& operator=(const page_locked&) = delete;
};

// lean: what a worker could do instead of a case's buffers and uploads, with one
// synchronisation a case: the input copied on the device from a copy uploaded before
// "go" (unless `fresh` is false: a changed case reuses it), into buffers made once; the
// poison, the guard words and the changed elements written, and the result and the guards
// read back, all queued. Staging (page-locked): [0, 64) guard words, [64, 193) what comes
// back, [200, 208) changed values. True when the result and the guards are right.
static_assert(course::perturbed_elements <= 56, "the changed values' staging slots are [200, 256)");
struct lean_rig {
    float *in, *out, *scratch, *staging;
};

bool lean_case(const course::part& p, const float* input, std::size_t n, bool fresh,
               const std::vector<course::element_change>& changes, double expected, double tolerance,
               const lean_rig& rig) {
    const std::size_t se = p.shape.scratch_elems(n), guards = course::guard_words * sizeof(float);
    if (fresh) CUDA_CHECK(cudaMemcpyAsync(rig.in, input, n * sizeof(float), cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemcpyAsync(rig.in + n, rig.staging, guards, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemsetAsync(rig.out, 0xFF, sizeof(float)));
    CUDA_CHECK(cudaMemcpyAsync(rig.out + 1, rig.staging, guards, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemsetAsync(rig.scratch, 0xFF, se * sizeof(float)));
    CUDA_CHECK(cudaMemcpyAsync(rig.scratch + se, rig.staging, guards, cudaMemcpyHostToDevice));
    for (std::size_t j = 0; j < changes.size(); ++j) {
        rig.staging[200 + j] = changes[j].value;
        CUDA_CHECK(cudaMemcpyAsync(rig.in + changes[j].index, rig.staging + 200 + j, sizeof(float),
                                   cudaMemcpyHostToDevice));
    }
    launch(p, rig.in, rig.out, rig.scratch, n);
    CUDA_CHECK(cudaMemcpyAsync(rig.staging + 64, rig.out, sizeof(float) + guards, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpyAsync(rig.staging + 129, rig.scratch + se, guards, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaStreamSynchronize(nullptr));
    return course::within_tolerance(expected, rig.staging[64], tolerance) &&
           std::memcmp(rig.staging + 65, rig.staging, guards) == 0 &&
           std::memcmp(rig.staging + 129, rig.staging, guards) == 0;
}

// context: the first CUDA call after "go" makes this process's context; a small
// allocation and a synchronisation make sure it is whole.
bench::child_result make_context(bench::start_gate& gate) {
    bench::child_result r;
    r.cases = 1;
    if (!gate.ready()) return r;
    const double start = bench::monotonic_seconds();
    CUDA_CHECK(cudaFree(nullptr));
    const course::device_buffer<float> one(1, "one float");
    CUDA_CHECK(cudaDeviceSynchronize());
    r.ended = bench::monotonic_seconds();
    r.seconds = r.ended - start;
    return r;
}

bench::child_result run_kind(const std::string& what, const std::string& lab, std::uint64_t seed, bench::start_gate& gate) {
    if (what == "context") return make_context(gate);
    bench::child_result r;
    const workload w = workload_of(course::load_policy(""), lab);
    for (const auto& c : w.cases) r.cases += c.changed ? 2 : 1;  // as the worker counts them
    course::input_cache inputs;
    std::size_t largest = 0;
    for (const auto& c : w.cases) {
        (void)inputs.sums(c.kind, course::reduction_case_seed(seed, c.kind, c.n), c.n, 1);
        largest = std::max(largest, c.n);
    }
    const auto host_of = [&](const one_case& c) -> const course::host_floats& {
        return inputs.values(c.kind, course::reduction_case_seed(seed, c.kind, c.n), c.n);
    };
    std::vector<float*> pinned;
    if (what == "pinned") {
        const double t0 = bench::monotonic_seconds();
        for (const auto& c : w.cases) {
            float* v = const_cast<float*>(host_of(c).data());
            if (std::find(pinned.begin(), pinned.end(), v) != pinned.end()) continue;  // the parts share inputs
            // An input of a few bytes may share a page with one already registered: it is
            // then copied as pageable memory, which for so few bytes changes nothing.
            const cudaError_t e = cudaHostRegister(v, c.n * sizeof(float), 0);
            (void)cudaGetLastError();
            if (e == cudaSuccess) pinned.push_back(v);
            else if (e != cudaErrorHostMemoryAlreadyRegistered) CUDA_CHECK(e);
        }
        r.pin_seconds = bench::monotonic_seconds() - t0;
    }
    const bool reused = what == "upload" || what == "kernels" || what == "lean";
    course::device_buffer<float> in(reused ? largest + 64 : 64, "input");
    course::device_buffer<float> out(64 + 1, "output");
    course::device_buffer<float> scratch(reused ? largest + 64 : 64, "partial sums");
    std::map<const float*, course::device_buffer<float>> pristine;  // lean: every input on the device
    page_locked staging(what == "lean" ? 256 : 0);  // lean: guard words out, outputs back
    for (std::size_t i = 0; staging.data != nullptr && i < course::guard_words; ++i)
        std::memcpy(staging.data + i, &course::guard_bits, sizeof(float));
    const lean_rig rig{in.data(), out.data(), scratch.data(), staging.data};
    int wrong = 0;  // lean's own check of its cases: a broken stand-in must not print numbers
    if (what == "lean")
        for (const auto& c : w.cases)
            if (pristine.count(host_of(c).data()) == 0)
                pristine.emplace(host_of(c).data(), course::device_buffer<float>(c.n, "input")).first->second.upload(
                    host_of(c).data(), c.n);
    for (const auto& p : w.parts) launch(p, in.data(), out.data(), scratch.data(), 1);  // loads each module
    CUDA_CHECK(cudaDeviceSynchronize());
    if (!gate.ready()) return r;

    const double start = bench::monotonic_seconds();
    for (const auto& c : w.cases) {
        const bool on_device = what == "device";
        if ((what == "worker" || what == "pinned" || on_device) && c.changed) {
            course::reduction_fixture f(c.n, c.part->shape.scratch_elems(c.n), 1);
            f.use(c.kind, seed, inputs, on_device);
            (void)f.check(*c.part, w.tolerance_c);
            f.perturb(course::run_seed(course::reduction_case_seed(seed, c.kind, c.n), 0), w.tolerance_c);
            (void)f.check(*c.part, w.tolerance_c);
        } else if (what == "worker" || what == "pinned" || on_device) {
            (void)course::run_reduction_case(*c.part, c.kind, c.n, seed, w.tolerance_c, inputs, on_device);
        } else if (what == "lean") {
            const auto& values = host_of(c);
            course::component_sums sums = inputs.sums(c.kind, course::reduction_case_seed(seed, c.kind, c.n), c.n, 1);
            // As the worker judges (reduction_case.cpp): exact where every partial sum is.
            const double tol =
                course::sum_is_exact_in_float(course::is_integer_valued(c.kind), sums.sum_abs[0])
                    ? 0.0
                    : course::tree_sum_tolerance(c.n, sums.sum_abs[0], w.tolerance_c);
            wrong += !lean_case(*c.part, pristine.at(values.data()).data(), c.n, true, {}, sums.sum[0], tol, rig);
            if (c.changed) {
                const auto changes = course::perturb_sums(
                    [&](std::size_t i) { return values[i]; }, c.n, c.n, 1, sums, w.tolerance_c,
                    course::run_seed(course::reduction_case_seed(seed, c.kind, c.n), 0));
                wrong += !lean_case(*c.part, nullptr, c.n, false, changes, sums.sum[0],
                                    course::tree_sum_tolerance(c.n, sums.sum_abs[0], w.tolerance_c), rig);
            }
        } else {
            if (what == "upload") {  // once for a changed case too, whose second run reuses its buffers
                in.upload(host_of(c).data(), c.n);
            } else if (what == "alloc") {
                const course::device_buffer<float> a(c.n + 64, "input"), b(64 + 1, "output"),
                    d(c.part->shape.scratch_elems(c.n) + 64, "partial sums");
            } else {
                for (int run = 0; run < (c.changed ? 2 : 1); ++run) {
                    launch(*c.part, in.data(), out.data(), scratch.data(), c.n);
                    CUDA_CHECK(cudaDeviceSynchronize());
                }
            }
        }
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    r.ended = bench::monotonic_seconds();
    r.seconds = r.ended - start;
    if (wrong > 0) throw std::logic_error(fmt::format("lean: {} case(s) wrong, so its figures are not the work's", wrong));
    for (float* v : pinned) (void)cudaHostUnregister(v);
    return r;
}

struct round_result {
    double median_s = 0, max_s = 0, wall_s = 0, pin_s = 0;
    int cases = 0;
};

round_result run_together(const std::string& what, const std::string& lab, int k) {
    constexpr int patience_s = 300;
    bench::forked_group kids(k, [&](int i, bench::start_gate& gate) {
        return run_kind(what, lab, 20261205 + static_cast<std::uint64_t>(i), gate);
    });
    if (!kids.start(patience_s)) throw std::runtime_error("not every process got ready: " + what);
    const std::vector<bench::child_result> got = kids.results(patience_s);
    if (static_cast<int>(got.size()) != k) throw std::runtime_error("not every process finished: " + what);
    std::vector<double> seconds, pins;
    double last = 0;
    for (const auto& r : got) {
        seconds.push_back(r.seconds);
        pins.push_back(r.pin_seconds);
        last = std::max(last, r.ended);
    }
    return {course::median(seconds), *std::max_element(seconds.begin(), seconds.end()), last - kids.started(),
            course::median(pins), got.front().cases};
}

std::string device_name() {  // in a child: this process never makes a context
    int fds[2];
    if (pipe(fds) != 0) return "";
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        cudaDeviceProp prop{};
        int count = 0;
        if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0 && cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
            (void)!write(fds[1], prop.name, std::strlen(prop.name));
        _exit(0);
    }
    close(fds[1]);
    std::string name;
    char buf[256];
    for (ssize_t n; pid > 0 && (n = read(fds[0], buf, sizeof buf)) > 0;) name.append(buf, static_cast<std::size_t>(n));
    close(fds[0]);
    if (pid > 0) waitpid(pid, nullptr, 0);
    return name;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"How graders sharing one GPU as separate processes slow each other down (GPU only)."};
    std::vector<int> ks{1, 4, 8, 16};
    const std::vector<std::string> every_kind{"worker", "pinned", "device", "lean", "upload", "alloc", "kernels", "context"};
    std::vector<std::string> kinds = every_kind;
    std::string out_file, lab = "lab3";
    int rounds = 3;
    app.add_option("--lab", lab, "Whose reference parts run (a lab with reduction parts)");
    app.add_option("--processes", ks, "Numbers of processes to run at once (1 is always run first)")
        ->delimiter(',')
        ->check(CLI::Range(1, 256));
    app.add_option("--kinds", kinds, "Kinds of work")->delimiter(',')->check(CLI::IsMember(every_kind));
    app.add_option("--rounds", rounds, "Runs of each kind and K (the median is printed)")->check(CLI::Range(1, 50));
    app.add_option("--out", out_file, "Write the results as JSON here");
    CLI11_PARSE(app, argc, argv);
    ks.erase(std::remove(ks.begin(), ks.end(), 1), ks.end());
    ks.insert(ks.begin(), 1);
    // Like the graders (process/worker_process.hpp): never an MPS client.
    setenv("CUDA_MPS_PIPE_DIRECTORY", course::no_mps_pipe_directory, 1);
    const std::string device = device_name();
    if (device.empty()) {
        std::cerr << "gpu_sharing: no NVIDIA GPU found; it measures processes sharing one.\n";
        return 2;
    }
    try {
        fmt::print("{}, {}'s reference parts, the default policy's GPU cases; median of {} round(s)\n", device, lab,
                   rounds);
        fmt::print("{:<8} {:>3} {:>6} {:>10} {:>9} {:>9} {:>9}\n", "kind", "K", "cases", "median s", "max s",
                   "wall s", "slowdown");
        nlohmann::json rows = nlohmann::json::array();
        for (const auto& what : kinds) {
            double alone = 0;
            for (int k : ks) {
                std::vector<round_result> runs;
                for (int i = 0; i < rounds; ++i) runs.push_back(run_together(what, lab, k));
                const auto med = [&](double round_result::*field) {
                    std::vector<double> v;
                    for (const auto& r : runs) v.push_back(r.*field);
                    return course::median(v);
                };
                const double m = med(&round_result::median_s);
                if (k == 1) alone = m;
                fmt::print("{:<8} {:>3} {:>6} {:>10.3f} {:>9.3f} {:>9.3f} {:>9.2f}\n", what, k, runs.front().cases, m,
                           med(&round_result::max_s), med(&round_result::wall_s), m / alone);
                rows.push_back({{"kind", what}, {"processes", k}, {"cases", runs.front().cases}, {"median_s", m},
                                {"max_s", med(&round_result::max_s)}, {"wall_s", med(&round_result::wall_s)},
                                {"slowdown", m / alone}, {"pin_s", med(&round_result::pin_s)}});
            }
        }
        if (!out_file.empty()) {
            const std::time_t t = std::time(nullptr);
            char date[16];
            std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&t));
            std::ofstream(out_file) << nlohmann::json{{"device", device}, {"date", date}, {"lab", lab},
                                                      {"rounds", rounds}, {"mps", "never (as the graders)"},
                                                      {"rows", rows}}.dump(2)
                                    << "\n";
        }
    } catch (const std::exception& e) {
        std::cerr << "gpu_sharing: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
