// `gpu_sharing`: what graders that share one GPU as separate processes cost each other.
// K processes (forked before any of them touches CUDA, each with its own context, as K
// graders per GPU have) make the GPU correctness inputs of the default policy, wait until
// all are ready, then run one kind of GPU work at once, and say how long it took them:
//   worker:  the correctness worker's own cases (run_reduction_case: buffers allocated,
//            poisoned, uploaded from pageable memory, run, read back, freed), for each
//            reduction part of a lab's reference (lab 3's unless --lab);
//   pinned:  the same, with the inputs page-locked first (cudaHostRegister);
//   upload:  only the uploads, into buffers made beforehand;
//   alloc:   only each case's cudaMalloc and cudaFree;
//   kernels: only the launches and a synchronisation after each, on buffers made beforehand.
// If a kind's seconds grow with K faster than the work does, the processes wait for each
// other there. The instructor guide ("Where the time goes now") cites what it measured.
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/grading_plan.hpp"
#include "core/policy.hpp"
#include "core/stats.hpp"
#include "course/device_buffer.hpp"
#include "inputs/input_cache.hpp"
#include "manifest/bench_labs.hpp"
#include "worker/reduction_case.hpp"

namespace {

using course::input_kind;

struct one_case {
    const course::part* part;
    input_kind kind;
    std::size_t n;
};

struct workload {
    std::vector<course::part> parts;
    std::vector<one_case> cases;
    double tolerance_c = 0;
};

workload workload_of(const course::policy& pol, const std::string& lab) {
    workload w;
    for (const auto& [name, parts] : course::manifest::reference_parts())
        if (name == lab)
            for (const auto& p : parts)
                if (p.kind == "reduction") w.parts.push_back(p);
    if (w.parts.empty()) throw std::invalid_argument("no lab \"" + lab + "\" with reduction parts");
    const course::case_lists lists = course::cases_of(pol, false);
    const auto& sizes = lists.problems.at("reduction").sizes;
    for (const auto& p : w.parts)
        for (const auto& name : lists.inputs)
            for (const auto& size : sizes) w.cases.push_back({&p, *course::parse_input_kind(name), size.count});
    w.tolerance_c = pol.tolerance_c;
    return w;
}

double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A child's side of the start: it says it is ready (1) or cannot run (0), and the ready
// ones wait for "go", so that all start their timed work together.
struct start_line {
    int ready_fd = -1, go_fd = -1;
    bool said = false;
    bool ready() {
        char byte = 1;
        said = true;
        return write(ready_fd, &byte, 1) == 1 && read(go_fd, &byte, 1) == 1;
    }
    void cannot() {
        char byte = 0;
        if (!said) (void)!write(ready_fd, &byte, 1);
        said = true;
    }
};

// One process's run of `what`: the seconds of its timed part, -1 if it failed.
double run_kind(const std::string& what, const workload& w, std::uint64_t seed, start_line& start_at) {
    CUDA_CHECK(cudaFree(nullptr));  // the context, before the clock starts
    course::input_cache inputs;
    std::size_t largest = 0;
    for (const auto& c : w.cases) {
        (void)inputs.sums(c.kind, course::reduction_case_seed(seed, c.kind, c.n), c.n, 1);
        largest = std::max(largest, c.n);
    }
    const auto host_of = [&](const one_case& c) -> const course::host_floats& {
        return inputs.values(c.kind, course::reduction_case_seed(seed, c.kind, c.n), c.n);
    };
    if (what == "pinned")
        for (const auto& c : w.cases) {
            const auto& v = host_of(c);
            // Each input once: the parts draw the same ones.
            const cudaError_t e = cudaHostRegister(const_cast<float*>(v.data()), v.size() * sizeof(float), 0);
            (void)cudaGetLastError();
            if (e != cudaErrorHostMemoryAlreadyRegistered) CUDA_CHECK(e);
        }
    course::device_buffer<float> in(what == "upload" || what == "kernels" ? largest + 64 : 0, "input");
    course::device_buffer<float> out(64, "output");
    course::device_buffer<float> scratch(what == "kernels" ? largest + 64 : 0, "partial sums");
    CUDA_CHECK(cudaDeviceSynchronize());
    if (!start_at.ready()) return -1;

    const double start = now_s();
    for (const auto& c : w.cases) {
        if (what == "worker" || what == "pinned") {
            (void)course::run_reduction_case(*c.part, c.kind, c.n, seed, w.tolerance_c, inputs);
        } else if (what == "upload") {
            in.upload(host_of(c).data(), c.n);
        } else if (what == "alloc") {
            // Made and freed here, as each case's fixture does.
            const course::device_buffer<float> a(c.n + 64, "input"), b(c.part->shape.scratch_elems(c.n) + 64, "scratch");
        } else if (what == "kernels") {
            course::launch_args a;
            a.in = in.data();
            a.out = out.data();
            a.scratch = scratch.data();
            a.n = c.n;
            c.part->launch(a);
            CUDA_CHECK(cudaDeviceSynchronize());
        }
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    return now_s() - start;
}

struct result_row {
    std::string kind;
    int processes = 0;
    std::vector<double> seconds;  // each process's
    double wall = 0;              // from "go" to the last one's end
};

// Reads exactly `size` bytes, waiting at most `seconds`: a child that dies or hangs must
// not hang the benchmark.
bool read_within(int fd, void* into, std::size_t size, int seconds) {
    auto* p = static_cast<char*>(into);
    while (size > 0) {
        pollfd pfd{fd, POLLIN, 0};
        if (poll(&pfd, 1, seconds * 1000) <= 0) return false;
        const ssize_t got = read(fd, p, size);
        if (got <= 0) return false;
        p += got;
        size -= static_cast<std::size_t>(got);
    }
    return true;
}

// K processes run `what` at once.
result_row run_together(const std::string& what, int k, const workload& w) {
    constexpr int patience_s = 300;
    int ready[2], go[2], back[2];
    if (pipe(ready) != 0 || pipe(go) != 0 || pipe(back) != 0) throw std::runtime_error("pipe failed");
    std::vector<pid_t> children;
    for (int i = 0; i < k; ++i) {
        const pid_t pid = fork();
        if (pid < 0) throw std::runtime_error("fork failed");
        if (pid == 0) {
            start_line line{ready[1], go[0]};
            double s = -1;
            try {
                s = run_kind(what, w, 20261205 + i, line);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "gpu_sharing: %s, process %d: %s\n", what.c_str(), i, e.what());
            }
            line.cannot();
            (void)!write(back[1], &s, sizeof s);
            _exit(s < 0 ? 1 : 0);
        }
        children.push_back(pid);
    }
    close(ready[1]);
    close(back[1]);
    const auto finish = [&] {
        for (pid_t pid : children) kill(pid, SIGKILL);
        for (pid_t pid : children) waitpid(pid, nullptr, 0);
        for (int fd : {ready[0], go[0], go[1], back[0]}) close(fd);
    };
    int ready_count = 0;
    for (int i = 0; i < k; ++i) {
        char byte = 0;
        if (!read_within(ready[0], &byte, 1, patience_s)) break;
        ready_count += byte == 1;
    }
    const double start = now_s();
    char go_byte = 1;
    for (int i = 0; i < k; ++i) (void)!write(go[1], &go_byte, 1);
    result_row row{what, k, {}, 0};
    for (int i = 0; i < k; ++i) {
        double s = -1;
        if (!read_within(back[0], &s, sizeof s, patience_s) || s < 0) break;
        row.seconds.push_back(s);
    }
    row.wall = now_s() - start;
    finish();
    if (ready_count != k || static_cast<int>(row.seconds.size()) != k)
        throw std::runtime_error(fmt::format("{} of {} processes running \"{}\" finished", row.seconds.size(), k, what));
    return row;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"How graders sharing one GPU as separate processes slow each other down (GPU only)."};
    std::vector<int> ks{1, 4, 8, 16};
    std::vector<std::string> kinds{"worker", "pinned", "upload", "alloc", "kernels"};
    std::string out_file, lab = "lab3";
    app.add_option("--lab", lab, "Whose reference parts run (labs with reduction parts)");
    app.add_option("--processes", ks, "Numbers of processes to run at once")->delimiter(',')->check(CLI::Range(1, 256));
    app.add_option("--kinds", kinds, "Kinds of work (worker, pinned, upload, alloc, kernels)")->delimiter(',');
    app.add_option("--out", out_file, "Write the results as JSON here");
    CLI11_PARSE(app, argc, argv);
    for (const auto& k : kinds)
        if (k != "worker" && k != "pinned" && k != "upload" && k != "alloc" && k != "kernels") {
            std::cerr << "gpu_sharing: unknown kind \"" << k << "\"\n";
            return 2;
        }
    int devices = 0;
    // In a child, so that this process never makes a context its children would inherit.
    const pid_t probe = fork();
    if (probe == 0) _exit(cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0 ? 0 : 1);
    int status = 0;
    if (probe < 0 || waitpid(probe, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::cerr << "gpu_sharing: no NVIDIA GPU found; it measures processes sharing one.\n";
        return 2;
    }
    try {
        const workload w = workload_of(course::load_policy(""), lab);
        fmt::print("{} cases per process ({}'s reference parts, the default policy's GPU sizes and inputs)\n",
                   w.cases.size(), lab);
        fmt::print("{:<8} {:>3} {:>11} {:>11} {:>9} {:>10}\n", "kind", "K", "median s", "max s", "wall s",
                   "x of K=1");
        nlohmann::json rows = nlohmann::json::array();
        for (const auto& what : kinds) {
            double alone = 0;
            for (int k : ks) {
                const result_row r = run_together(what, k, w);
                const double med = course::median(r.seconds);
                if (k == ks.front()) alone = med;
                fmt::print("{:<8} {:>3} {:>11.3f} {:>11.3f} {:>9.3f} {:>10.2f}\n", what, k, med,
                           *std::max_element(r.seconds.begin(), r.seconds.end()), r.wall, alone > 0 ? med / alone : 0);
                rows.push_back({{"kind", what}, {"processes", k}, {"seconds", r.seconds}, {"median_s", med},
                                {"wall_s", r.wall}, {"cases", w.cases.size()}, {"lab", lab}});
            }
        }
        if (!out_file.empty()) std::ofstream(out_file) << nlohmann::json{{"rows", rows}}.dump(2) << "\n";
    } catch (const std::exception& e) {
        std::cerr << "gpu_sharing: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
