// GPU grading: the technique checks read the CPU emulator's counters there too, so that a
// lab file gets one verdict on its technique whichever backend grades it. The same file,
// compiled for the emulator beside the GPU build, runs its correctness cases there, on
// the CPU's cores while the GPU's own correctness cases run (grade_lab), without the large
// cases where the policy says so (core/grading_plan.hpp, beside_gpu). Its hint of a part
// it found racy stands in for the GPU's (core/hints.hpp, apply_race_hints).
#include <fmt/format.h>

#include "core/grading_plan.hpp"
#include "core/stopwatch.hpp"

#include <memory>

#include "supervisor/phases.hpp"
#include "supervisor/worker_choice.hpp"

namespace course {

namespace {

std::string first_failure(const correctness_result& c) {
    if (!c.failures.empty()) {
        const case_record& f = c.failures.front();
        const std::string what = f.detail.empty() ? fmt::format("expected {}, got {}", f.expected, f.got) : f.detail;
        return f.input + " input, " + f.size + ": " + what;
    }
    return c.message.empty() ? "its cases did not pass" : c.message;
}

}  // namespace

std::future<emulated_run> start_emulated_technique_run(const session& s) {
    const std::string worker = worker_path(s.opt, "emulated");
    if (!executable(worker)) return {};  // a build without the emulator: the GPU's own checks only
    // Its own options, policy (beside_gpu's) and session, made before the thread starts: the
    // caller's go on being used. Its progress lines say whose they are; the kernels' output
    // is the GPU's to show (--show-output), not printed again, nor mixed into it, from here.
    struct own {
        grade_options opt;
        policy pol;
        session s;
        own(const session& gpu) : opt(gpu.opt), pol(beside_gpu(gpu.pol)), s(opt, pol) {}
        own(const own&) = delete;  // a copy's session would still point at these members
        own& operator=(const own&) = delete;
    };
    auto e = std::make_shared<own>(s);
    e->opt.kernel_output = nullptr;
    if (s.opt.progress) e->opt.progress = [say = s.opt.progress](const std::string& line) { say("emulator: " + line); };
    e->s.worker = worker;
    e->s.backend = "emulated";
    e->s.seed = s.seed;
    e->s.parts = s.parts;
    e->s.student_source = s.student_source;
    return std::async(std::launch::async, [e] {
        const stopwatch clock;
        emulated_run run;
        correctness_phase(e->s, run.parts);
        run.seconds = clock.seconds();
        run.reference_counters = e->s.reference_counters;
        return run;
    });
}

void take_emulated_technique_run(const session& s, emulated_run from_run,
                                 std::map<std::string, part_result>& results) {
    for (const auto& meta : s.parts) {
        part_result& into = results[meta.id];
        part_result& from = from_run.parts[meta.id];
        into.counters = std::move(from.counters);
        into.counters_problems = std::move(from.counters_problems);
        into.hazards = std::move(from.hazards);
        into.shuffles_perturbed = std::move(from.shuffles_perturbed);
        into.counters_error = std::move(from.counters_error);
        into.emulator_verdict =
            from.correctness.status == correctness_status::passed ? "passed" : first_failure(from.correctness);
        into.emulator_hint = from.correctness.status == correctness_status::failed ? from.correctness.hint : "";
    }
}

}  // namespace course
