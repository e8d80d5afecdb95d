#include "worker/worker_main.hpp"

#include <CLI/CLI.hpp>

#include <array>
#include <cstdlib>
#include <functional>
#include <optional>
#include <iostream>

#include "course/cuda_check.hpp"
#include "worker/correctness.hpp"
#include "worker/device_info.hpp"
#include "worker/events.hpp"
#include "worker/go_signal.hpp"
#include "worker/input_maker.hpp"
#include "worker/problem_kind.hpp"
#include "worker/sandbox.hpp"
#if !defined(COURSE_EMULATE)
#include "worker/timing.hpp"
#else
#include "emu/emu_stats.hpp"
#include "worker/counters.hpp"
#include "worker/executor.hpp"
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

hello_event describe(const lab_config& cfg, const loaded_lab& lab, const device_info& device) {
    hello_event hello{cfg.lab, backend_name, device, {}};
    for (const auto& p : lab.student) {
        const part* ref = find_part(lab.reference, p.id);
        const part* base = baseline_for(cfg, lab, p.id);
        (void)problem_kind_named(p.kind);  // a part of a kind this worker cannot run is the build's mistake
        hello.parts.push_back({p.id, p.title, p.kernel, p.kind, p.shape.elements_per_block(),
                               p.shape.max_grid, p.record_len, p.hint, ref ? ref->kernel : "", base ? base->kernel : ""});
    }
    return hello;
}

std::vector<const part*> select_parts(const lab_parts& parts, const std::vector<std::string>& ids) {
    std::vector<const part*> out;
    for (const auto& id : ids) {
        const part* p = find_part(parts, id);
        if (p == nullptr) throw std::invalid_argument("no part " + id + " in this lab");
        out.push_back(p);
    }
    return out;
}

// The three versions of a part: naive baseline, reference, student.
using versions_of_part = std::function<std::array<const part*, 3>(const part&)>;

#if defined(COURSE_EMULATE)
// After a part's cases: the reference and baseline counted on the drawn problems beside
// the student's cases there. It always answers with a counters event, which closes the
// part: with the reason when there are none.
void emit_counters(const part& p, const versions_of_part& versions_of, const counters_request& request,
                   const case_tracer& traced, std::uint64_t seed, double tolerance_c,
                   const correctness_summary& cases) {
    const auto versions = versions_of(p);
    counters_event none{p.id, "", {}, traced.hazards, "", ""};
    if (cases.sticky) {
        none.error = "not counted: the part's cases ended with an error that leaves nothing to run on";
    } else if (cases.hung) {
        none.error = "not counted: a case of the part hung, and a traced run would hang again";
    } else if (!versions[0] || !versions[1]) {
        none.error = "not counted: the part has no reference";
    } else {
        try {
            events().emit(count_versions(versions.data(), request, traced, seed, tolerance_c));
            return;
        } catch (const std::exception& e) {
            none.error = std::string("the traced run of the reference failed: ") + e.what();
        }
    }
    try {
        executor_reset_launch_stats();
    } catch (const executor_lost&) {
        // Nothing is left to reset; the phase ends after this part.
    }
    events().emit(none);
}
#endif

#if defined(COURSE_EMULATE)
// The reference's and baseline's counters of each part on the request's counters problems,
// one counters event a part (supervisor/reference_counters.hpp); no student code runs.
int run_references(const std::vector<const part*>& parts, const correctness_request& request,
                   const versions_of_part& versions_of) {
    if (!request.counters) throw std::invalid_argument("a references job names no counters problems");
    for (const part* p : parts) {
        const auto versions = versions_of(*p);
        counters_event e{p->id, "", {}, {}, "", ""};
        if (!versions[0] || !versions[1]) {
            e.error = "not counted: the part has no reference";
        } else {
            try {
                e = count_references(versions.data(), *request.counters, request.seed, request.tolerance_c);
            } catch (const executor_lost&) {
                throw;
            } catch (const std::exception& ex) {
                e.error = std::string("the traced run of the reference failed: ") + ex.what();
            }
        }
        events().emit(e);
    }
    return exit_ok;
}
#endif

// `then_time`, when given (a GPU's correctness job with a timing request): after the last
// part's cases, the parts that passed are timed in this process, whose CUDA context is made.
int run_correctness_phase(const std::vector<const part*>& parts, correctness_job job,
                          const std::optional<counters_request>& counters, const versions_of_part& versions_of,
                          bool wait_for_go_first,
                          const std::function<void(const std::vector<std::string>&)>& then_time = {}) {
    // The inputs first, on the host and while other graders may be timing: no GPU needed.
    // A GPU worker makes its reductions' inputs on the device instead, case by case.
    job.inputs_on_device = inputs_made_on_device;
    prepare_correctness_inputs(job, parts);
    if (wait_for_go_first) {
        correctness_ready_event ready;
        for (const part* p : parts) ready.parts.push_back(p->id);
        events().emit(ready);
        wait_for_go("correctness cases", static_cast<bool>(then_time));
    }
    std::vector<std::string> passed;
    for (const part* p : parts) {
        job.target = p;
#if defined(COURSE_EMULATE)
        // Every case traced: hazards in every launch, the counters where the draw fell.
        case_tracer traced(*p, counters ? *counters : counters_request{});
        if (executor_running()) {
            executor_reset_launch_stats();
            executor_set_tracing(true);
            job.after_case = [&](const std::string& input, const std::string& size) { traced.after_case(input, size); };
            job.before_case = [&](const std::string& input, const std::string& size) {
                traced.before_case(input, size);
            };
        }
#endif
        const correctness_summary s = run_correctness(job);
        part_correctness_event verdict{p->id, s.passed, s.cases, s.failed, s.sticky, std::nullopt};
#if defined(COURSE_EMULATE)
        job.after_case = nullptr;
        job.before_case = nullptr;
        if (executor_running()) {
            try {
                executor_set_counting(true);
                executor_set_tracing(false);
            } catch (const executor_lost&) {
                // The counters event below says what is missing.
            }
        }
        // The emulator's answer to the uses_shuffle check (a GPU reads the SASS instead).
        verdict.warp_shuffles = traced.warp_shuffles;
#endif
        events().emit(verdict);
#if defined(COURSE_EMULATE)
        if (counters) emit_counters(*p, versions_of, *counters, traced, job.seed, job.tolerance_c, s);
        // The process that ran the kernels is gone: the supervisor starts a new worker for
        // the parts that are left, as after a sticky CUDA error.
        if (!executor_running()) return exit_sticky;
#else
        (void)counters;
        (void)versions_of;
#endif
        if (s.sticky) return exit_sticky;
        if (s.passed) passed.push_back(p->id);
    }
    if (then_time && !passed.empty()) then_time(passed);
    return exit_ok;
}

#if !defined(COURSE_EMULATE)
// The job's timing request with the lab's three versions of every part it names.
timing_job timing_job_from(const timing_request& request, const lab_config& config, const loaded_lab& lab) {
    timing_job job;
    job.lab = config.lab;
    for (const part* p : select_parts(lab.student, request.parts)) {
        timed_part tp;
        tp.versions[0] = baseline_for(config, lab, p->id);
        tp.versions[1] = find_part(lab.reference, p->id);
        tp.versions[2] = p;
        if (!tp.versions[0] || !tp.versions[1]) throw std::logic_error("part " + p->id + " has no reference");
        job.parts.push_back(tp);
    }
    job.sizes = request.sizes;
    job.rounds = request.rounds;
    job.warmup = request.warmup;
    job.flush_bytes = request.flush_bytes;
    job.seed = request.seed;
    job.tolerance_c = request.tolerance_c;
    return job;
}
#endif

correctness_job correctness_job_from(const correctness_request& request) {
    correctness_job job;
    job.problems = request.problems;
    for (const auto& name : request.inputs) {
        const auto kind = parse_input_kind(name);
        if (!kind) throw std::invalid_argument("unknown input kind " + name);
        job.inputs.push_back(*kind);
    }
    job.seed = request.seed;
    job.tolerance_c = request.tolerance_c;
    return job;
}

#if !defined(COURSE_EMULATE)  // the emulator cannot be profiled
// One version of a part, run once on an input large enough to fill the GPU and small
// enough to profile in a second.
void run_profile(const profile_request& request, const lab_config& config, const loaded_lab& lab) {
    const std::string& version = request.version;
    const part* p = find_part(version == "student"     ? lab.student
                              : version == "reference" ? lab.reference
                                                       : lab.baseline,
                              request.part);
    if (version == "baseline" && !config.baseline_by_id) p = baseline_for(config, lab, request.part);
    if (p == nullptr) throw std::invalid_argument("no part " + request.part + " in the " + version + " version");
    const part* versions[3] = {p, p, p};
    const problem_kind& kind = problem_kind_named(p->kind);
    // The profiled run's input, made on the host: Nsight Compute would profile an input
    // kernel too. Its tolerance is never used, since nothing is checked.
    const auto prob = kind.make_problem(versions, request.size, 1.0,
                                        kind.make_inputs(*p, request.size, request.seed, std::nullopt, false));
    prob->run(*p);
    CUDA_CHECK(cudaDeviceSynchronize());
    events().emit(profiled_event{p->id, version, prob->label()});
}
#endif

}  // namespace

int worker_main(int argc, char** argv, const lab_config& config) {
    CLI::App app{std::string("Worker for ") + config.lab + " (" + backend_name +
                 "): runs one job for the grader and reports JSON events."};
    int events_fd = 1;
    std::string job_text;
    app.add_option("--events-fd", events_fd, "File descriptor for JSON events (default: stdout)");
    app.add_option("--job", job_text, "The job, as JSON (grader/core/protocol.hpp)")->required();
    CLI11_PARSE(app, argc, argv);
    set_events_fd(events_fd);

    worker_job job;
    try {
        job = nlohmann::json::parse(job_text).get<worker_job>();
        const bool needs_correctness = job.command == worker_command::correctness || job.command == worker_command::references;
        const bool complete = (!needs_correctness || job.correctness) &&
                              (job.command != worker_command::timing || job.timing) &&
                              (job.command != worker_command::profile || job.profile);
        if (!complete) throw std::invalid_argument("the job names a command without its request");
    } catch (const std::exception& e) {
        events().emit(error_event{std::string("bad job: ") + e.what(), false});
        return exit_usage;
    }

    try {
#if defined(COURSE_EMULATE)
        // However the job ends, the executor (started below) is stopped and waited for.
        struct executor_stop {
            ~executor_stop() { stop_kernel_executor(); }
        } stop_at_end;
#endif
        int devices = 0;
        const cudaError_t status = cudaGetDeviceCount(&devices);
        if (status != cudaSuccess || devices == 0) {
            const bool no_driver = status == cudaErrorInsufficientDriver || status == cudaErrorNoDevice;
            const std::string why = status != cudaSuccess ? cudaGetErrorString(status) : "no device";
            events().emit(error_event{no_driver || devices == 0 ? std::string("no NVIDIA GPU or driver found")
                                                                : "the GPU cannot be used: " + why,
                                      false});
            return exit_usage;
        }
        const device_info device = query_device();
        loaded_lab lab{config.student(), config.reference(), config.baseline()};
        // Create the CUDA context (device files, driver threads) while the worker is
        // still free; with the parts built, student code may run from here on.
        CUDA_CHECK(cudaFree(nullptr));
        sandbox_event sandboxed = sandbox_event_of(apply_sandbox(sandbox_options_from_env(job.sandbox, device.emulated)));
#if defined(COURSE_EMULATE)
        // Kernels are host code here: they run in a process of their own, started before any
        // input or expected value exists, and confined further (worker/executor.hpp). The
        // describe job starts one too, to report how it is confined.
        if (job.command == worker_command::correctness || job.command == worker_command::describe ||
            job.command == worker_command::references) {
            std::string note;
            start_kernel_executor(lab.student, lab.reference, lab.baseline, note);
            sandboxed.note += (sandboxed.note.empty() ? "" : " ") + note;
        }
#endif
        events().emit(sandboxed);
#if defined(COURSE_EMULATE)
        // A timing job, or a correctness job that times next: the emulator has no clock
        // that means anything for a GPU kernel.
        if (job.command == worker_command::timing || job.timing) {
            events().emit(error_event{"the CPU emulator cannot time kernels", false});
            return exit_usage;
        }
#endif

        switch (job.command) {
        case worker_command::describe:
            events().emit(describe(config, lab, device));
            return exit_ok;
        case worker_command::profile:
#if defined(COURSE_EMULATE)
            // Nsight Compute profiles GPU kernels; on the emulator they would run in this process.
            events().emit(error_event{"the CPU emulator cannot profile kernels", false});
            return exit_usage;
#else
            run_profile(*job.profile, config, lab);
            return exit_ok;
#endif
        case worker_command::references:
#if defined(COURSE_EMULATE)
            return run_references(select_parts(lab.student, job.correctness->parts), *job.correctness,
                                  [&](const part& p) {
                                      return std::array<const part*, 3>{baseline_for(config, lab, p.id),
                                                                        find_part(lab.reference, p.id), &p};
                                  });
#else
            events().emit(error_event{"only the CPU emulator counts the references", false});
            return exit_usage;
#endif
        case worker_command::correctness: {
            // With a timing request too, the parts that pass are timed next, in this process.
            std::function<void(const std::vector<std::string>&)> then_time;
#if !defined(COURSE_EMULATE)
            if (job.timing) {
                then_time = [&](const std::vector<std::string>& ids) {
                    timing_request request = *job.timing;
                    request.parts = ids;
                    run_timing(timing_job_from(request, config, lab), device);
                };
            }
#endif
            return run_correctness_phase(
                select_parts(lab.student, job.correctness->parts), correctness_job_from(*job.correctness),
                job.correctness->counters, [&](const part& p) {
                    return std::array<const part*, 3>{baseline_for(config, lab, p.id), find_part(lab.reference, p.id),
                                                      &p};
                },
                job.correctness->wait_for_go, then_time);
        }
        case worker_command::timing:
#if defined(COURSE_EMULATE)
            return exit_usage;  // refused above
#else
            run_timing(timing_job_from(*job.timing, config, lab), device);
            return exit_ok;
#endif
        }
        return exit_usage;
    } catch (const cuda_error& e) {
        events().emit(error_event{e.what(), e.sticky()});
        return e.sticky() ? exit_sticky : exit_usage;
    } catch (const std::exception& e) {
        events().emit(error_event{e.what(), false});
        return exit_usage;
    }
}

}  // namespace course
