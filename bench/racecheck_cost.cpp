// `racecheck_cost`: what one grading's racecheck run costs, alone and K at once, with the
// grader's own command (racecheck_argv: every kernel of the worker instrumented) and with
// a candidate, the same command filtered to the student's kernels (`--kernel-name
// kns=<lab>_student`), which the grader would take only if it saved time and still found
// what the grader's command finds; on an H100 it found the same and saved nothing
// (docs/instructor-guide.md). Each
// run: compute-sanitizer racecheck of a lab's race_check_parts at the policy's
// sanitizer_sizes and race_check inputs, on a worker holding a lab's reference
// (build/selfcheck/solution/<lab>_worker_gpu), every module loaded when its context is
// made (CUDA_MODULE_LOADING=EAGER, as the grader runs it), timed from its start to its
// end, as a grading waits for it. K processes start each run at the same moment
// (forked_group.hpp). A run counts only if racecheck printed its summary; a hazard it
// reports is listed, so that a racy worker shows what each command finds.
//
//   racecheck_cost --worker build/selfcheck/solution/lab3_worker_gpu --processes 1,8 --out FILE
#include <CLI/CLI.hpp>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/grading_plan.hpp"
#include "core/policy.hpp"
#include "core/protocol.hpp"
#include "core/stats.hpp"
#include "core/tool_output.hpp"
#include "process/worker_process.hpp"
#include "supervisor/technique_checks.hpp"

#include "forked_group.hpp"

namespace {

struct variant_run {
    std::vector<double> seconds;  // one per process
    long long hazards = 0;        // the most any process's run reported
};

// The grader's command ("grader"), or the same filtered to the student's kernels ("student").
std::vector<std::string> command_of(const std::string& variant, const std::string& sanitizer,
                                    const std::string& worker, const std::string& lab) {
    const course::policy pol = course::load_policy("");
    const course::lab_policy& lp = pol.lab(lab);
    if (lp.race_check_parts.empty()) throw std::invalid_argument(lab + " has no race_check_parts");
    course::correctness_request request;
    request.parts = lp.race_check_parts;
    request.seed = 1;
    request.tolerance_c = pol.tolerance_c;
    request.inputs = pol.race_check_inputs;
    request.problems = course::sanitizer_cases(pol);
    std::vector<std::string> argv = course::racecheck_argv(
        sanitizer, course::worker_argv(worker, course::correctness_job_of(request, course::sandbox_mode::relaxed)));
    if (variant == "student") {
        // Before the worker's command: the student's kernels live in this namespace
        // (race_phase.cpp names them so).
        const std::string filter[] = {"--kernel-name", "kns=" + lab + "_student"};
        const auto worker_at = std::find(argv.begin(), argv.end(), worker);
        argv.insert(worker_at, std::begin(filter), std::end(filter));
    }
    return argv;
}

variant_run run_together(const std::vector<std::string>& argv, int k, double timeout_s) {
    bench::forked_group group(k, [&](int, bench::start_gate& gate) {
        bench::child_result r;  // `cases` carries the hazards racecheck counted
        if (!gate.ready()) return r;
        const double start = bench::monotonic_seconds();
        course::worker_limits limits = course::timeouts(timeout_s, timeout_s);
        limits.keep_output = 32u << 20;
        limits.output_counts_as_activity = true;
        const course::worker_run run = course::run_worker(argv, limits, {}, {"CUDA_MODULE_LOADING=EAGER"});
        r.ended = bench::monotonic_seconds();
        const course::racecheck_result found = course::parse_racecheck(run.output_tail, {});
        if (!found.parsed) {
            std::cerr << "racecheck_cost: no racecheck summary (it " << run.describe_end() << ")\n";
            return r;
        }
        r.cases = static_cast<int>(std::min<long long>(found.found, 1 << 30));
        r.seconds = r.ended - start;
        return r;
    });
    if (!group.start(120)) throw std::runtime_error("a process could not start");
    const auto results = group.results(static_cast<int>(timeout_s) + 60);
    if (results.empty()) throw std::runtime_error("a racecheck run failed");
    variant_run out;
    for (const auto& r : results) {
        out.seconds.push_back(r.seconds);
        out.hazards = std::max<long long>(out.hazards, r.cases);
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"What a grading's racecheck run costs, alone and K at once (GPU only)."};
    std::string worker, lab = "lab3", sanitizer, out_file;
    std::vector<int> ks{1, 8};
    std::vector<std::string> variants{"grader", "student"};
    int rounds = 2;
    double timeout_s = 300;
    app.add_option("--worker", worker, "A GPU worker (build/selfcheck/solution/<lab>_worker_gpu)")->required();
    app.add_option("--lab", lab, "The worker's lab (default lab3)");
    app.add_option("--sanitizer", sanitizer, "compute-sanitizer (default: as the grader finds it)");
    app.add_option("--processes", ks, "Numbers of processes at once")->delimiter(',')->check(CLI::Range(1, 64));
    app.add_option("--variants", variants, "grader: the grader's command; student: filtered to the student's kernels")
        ->delimiter(',')
        ->check(CLI::IsMember({"grader", "student"}));
    app.add_option("--rounds", rounds, "Rounds of each variant and K, alternating (medians)")->check(CLI::Range(1, 20));
    app.add_option("--timeout", timeout_s, "One run's limit in seconds")->check(CLI::Range(1.0, 3600.0));
    app.add_option("--out", out_file, "Write the results as JSON here");
    CLI11_PARSE(app, argc, argv);
    sanitizer = sanitizer.empty() ? course::find_tool("compute-sanitizer") : course::find_program(sanitizer);
    if (sanitizer.empty()) {
        std::cerr << "racecheck_cost: compute-sanitizer not found (--sanitizer PATH)\n";
        return 2;
    }
    try {
        fmt::print("{:<8} {:>3} {:>6} {:>10} {:>9} {:>8}\n", "variant", "K", "round", "median s", "max s", "hazards");
        nlohmann::json rows = nlohmann::json::array();
        for (int k : ks) {
            for (int round = 1; round <= rounds; ++round) {
                // Alternating which goes first, so that an order effect favours neither.
                std::vector<std::string> order = variants;
                if (round % 2 == 0) std::reverse(order.begin(), order.end());
                for (const auto& v : order) {
                    const variant_run run = run_together(command_of(v, sanitizer, worker, lab), k, timeout_s);
                    const double med = course::median(run.seconds);
                    const double max = *std::max_element(run.seconds.begin(), run.seconds.end());
                    fmt::print("{:<8} {:>3} {:>6} {:>10.3f} {:>9.3f} {:>8}\n", v, k, round, med, max, run.hazards);
                    rows.push_back({{"variant", v}, {"processes", k}, {"round", round}, {"median_s", med},
                                    {"max_s", max}, {"seconds", run.seconds}, {"hazards", run.hazards}});
                }
            }
        }
        if (!out_file.empty()) {
            const std::time_t t = std::time(nullptr);
            char date[16];
            std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&t));
            std::ofstream out(out_file);
            out << nlohmann::json{{"date", date}, {"lab", lab}, {"worker", worker}, {"rows", rows}}.dump(2) << "\n";
            if (!out) throw std::runtime_error("cannot write " + out_file);
        }
    } catch (const std::exception& e) {
        std::cerr << "racecheck_cost: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
