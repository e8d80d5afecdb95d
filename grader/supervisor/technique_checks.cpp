#include "supervisor/technique_checks.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "core/bank_verdict.hpp"
#include "core/tool_output.hpp"
#include "process/worker_process.hpp"

namespace course {

namespace {

// Runs a tool to completion and returns its stdout and stderr (up to 32 MiB); `reply`
// answers the events of a worker it runs (worker_process.hpp), `env` is added to its
// environment.
worker_run run_tool(const std::vector<std::string>& argv, double seconds, const worker_reply& reply = {},
                    const std::vector<std::string>& env = {}, const std::atomic<bool>* stop = nullptr) {
    worker_limits limits;
    limits.stop = stop;
    limits.quiet_seconds = seconds;
    limits.total_seconds = seconds;
    limits.keep_output = 32u << 20;
    limits.output_counts_as_activity = true;
    return run_worker(argv, limits, {}, env, reply);
}

check_result skipped(const char* name, const std::string& why) { return {name, check_status::skipped, why}; }

}  // namespace

std::string find_tool(const std::string& name) {
    const std::string found = find_program(name);
    if (!found.empty()) return found;
    const std::string cuda = "/usr/local/cuda/bin/" + name;
    return ::access(cuda.c_str(), X_OK) == 0 ? cuda : "";
}

check_result check_no_libraries(const std::string& source, const std::string& object,
                                const std::vector<library_rule>& rules) {
    std::ifstream in(source);
    if (source.empty() || !in) return skipped("no_libraries", "cannot read the student's source " + source);
    std::stringstream text;
    text << in.rdbuf();
    // The object's symbols, on either backend: nm reads the emulator's object as well.
    std::string symbols;
    std::string note = " (source and object symbols)";
    const std::string nm = find_tool("nm");
    if (nm.empty()) {
        note = " (nm not found: only the source was checked)";
    } else {
        const worker_run run = run_tool({nm, "-C", object}, 60);
        if (run.exited_normally() && run.exit_code == 0) {
            symbols = run.output_tail;
        } else {
            note = " (nm could not read " + object + ": only the source was checked)";
        }
    }
    const auto found = forbidden_library_uses(text.str(), symbols, rules);
    if (found.empty()) {
        std::string names;
        for (const auto& r : rules) names += (names.empty() ? "" : ", ") + r.name;
        return {"no_libraries", check_status::passed, "uses none of " + names + note};
    }
    std::string detail = "the lab must be written by hand, without library reductions: ";
    for (std::size_t i = 0; i < found.size() && i < 3; ++i) detail += (i == 0 ? "" : "; ") + found[i];
    if (found.size() > 3) detail += " (and " + std::to_string(found.size() - 3) + " more)";
    return {"no_libraries", check_status::failed, detail + "; every part loses its points"};
}

check_result check_uses_shuffle(const std::string& object, const std::string& prefix, const std::string& kernel) {
    const std::string cuobjdump = find_tool("cuobjdump");
    if (cuobjdump.empty()) return skipped("uses_shuffle", "cuobjdump not found");
    const worker_run run = run_tool({cuobjdump, "-sass", object}, 120);
    if (!run.exited_normally() || run.exit_code != 0)
        return skipped("uses_shuffle", "cuobjdump " + run.describe_end());
    sass_program program = parse_sass(run.output_tail);
    // Relocatable device code (-rdc) calls other functions through relocations, which
    // only the ELF dump lists.
    const auto reachable = reachable_functions(program, prefix);
    if (std::any_of(reachable.begin(), reachable.end(),
                    [&](const std::string& f) { return program[f].calls_elsewhere; })) {
        const worker_run elf = run_tool({cuobjdump, "-elf", object}, 120);
        if (elf.exited_normally() && elf.exit_code == 0) add_relocated_calls(program, elf.output_tail);
    }
    std::vector<std::string> elsewhere;
    switch (find_in_sass(program, prefix, "SHFL", &elsewhere)) {
    case sass_search::found:
        return {"uses_shuffle", check_status::passed, "SHFL instructions in " + kernel + " or the functions it calls"};
    case sass_search::not_found: {
        std::string detail = "no SHFL instruction in the SASS of " + kernel +
                             " or the device functions it calls: its warp-level steps must use __shfl_*_sync";
        if (!elsewhere.empty()) {
            // Readable names, without their parameters: "lab4_student::reduce_shuffle_draft".
            std::vector<std::string> names;
            for (const auto& f : elsewhere) {
                const std::string d = demangle(f);
                if (names.size() < 3) names.push_back(d.substr(0, d.find('(')));
            }
            std::string list;
            for (std::size_t i = 0; i < names.size(); ++i)
                list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
            detail += " (SHFL is only in " + list + (elsewhere.size() > 3 ? " and others" : "") + ", which " +
                      kernel + " does not call)";
        }
        return {"uses_shuffle", check_status::failed, detail};
    }
    case sass_search::no_such_function: break;
    }
    return skipped("uses_shuffle", "no SASS for " + kernel + " in " + object);
}

check_result check_emulated_shuffles(const std::string& kernel, const part_result& part) {
    const correctness_result& correctness = part.correctness;
    if (!correctness.warp_shuffles)
        return skipped("uses_shuffle", "the emulated worker ended before it reported the warp shuffles of " + kernel);
    const std::string seen =
        "the emulator saw " + std::to_string(*correctness.warp_shuffles) + " warp shuffles executed by " + kernel;
    if (*correctness.warp_shuffles > 0 && part.shuffles_perturbed == "unchanged")
        return {"uses_shuffle", check_status::failed,
                seen + ", but with every shuffle's value changed its result was still right: the shuffles carry "
                       "nothing. Sum each warp's values with the shuffles themselves (the handout's part A)"};
    if (*correctness.warp_shuffles > 0)
        return {"uses_shuffle", check_status::passed,
                seen + (part.shuffles_perturbed == "changed" ? "; its result depends on them" : "")};
    return {"uses_shuffle", check_status::failed,
            "the emulator saw no warp shuffle executed by " + kernel +
                ": its warp-level steps must use __shfl_*_sync (a shuffle in another kernel does not count)"};
}

namespace {

// compute-sanitizer exits with this code when it reports a hazard (its warnings too, on an
// H200 with compute-sanitizer 2025.3.1), but the code cannot say which part had it, and a
// summary's "0 errors" says nothing: the reports are read and pinned on kernels.
constexpr int racecheck_exit_code = 86;
constexpr int racecheck_print_limit = 100;

std::string joined(const std::vector<std::string>& items, const char* sep) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
    return out;
}

std::string race_message(const race_target& t, long long hazards, bool at_least, const std::string& first) {
    return "racecheck found " + std::string(at_least ? "at least " : "") + std::to_string(hazards) +
           " shared-memory hazard" + (hazards == 1 ? "" : "s") + " in " + t.kernel_for_people +
           ": since Volta the lanes of a warp do not run in lockstep; put __syncwarp() between reading a "
           "neighbour's value and writing your own, or use shuffles" +
           (first.empty() ? "" : " (first report: " + first + ")");
}

}  // namespace

std::vector<std::string> racecheck_argv(const std::string& tool, const std::vector<std::string>& command) {
    std::vector<std::string> argv = {tool,
                                     "--tool",
                                     "racecheck",
                                     "--racecheck-report",
                                     "hazard",
                                     "--error-exitcode",
                                     std::to_string(racecheck_exit_code),
                                     "--print-limit",
                                     std::to_string(racecheck_print_limit),
                                     "--show-backtrace",
                                     "no"};
    argv.insert(argv.end(), command.begin(), command.end());
    return argv;
}

std::map<std::string, check_result> check_races(const std::string& worker, const std::vector<race_target>& targets,
                                                const race_options& options, bool gpu) {
    std::map<std::string, check_result> out;
    auto skip_all = [&](const std::vector<race_target>& which, const std::string& why) {
        for (const auto& t : which) out[t.part] = skipped("races", why);
    };
    if (!gpu) {
        skip_all(targets, "the CPU emulator runs the lanes of a warp one at a time, so a racy warp-level step "
                          "already makes the sum wrong there");
        return out;
    }
    const std::string tool = find_tool("compute-sanitizer");
    if (tool.empty()) {
        skip_all(targets, "compute-sanitizer not found: the part was not checked for races");
        return out;
    }
    std::vector<std::string> kernels;
    for (const auto& t : targets) kernels.push_back(t.kernel);
    // "n = 33, 4097, random input": the cases a part of this kind ran.
    const auto cases_of_kind = [&](const std::string& kind) {
        std::vector<std::string> sizes;
        const auto it = options.cases.problems.find(kind);
        if (it != options.cases.problems.end())
            for (const auto& size : it->second.sizes)
                sizes.push_back(size.is_shape() ? size.word() : std::to_string(size.count));
        const bool counts = it != options.cases.problems.end() && !it->second.sizes.empty() &&
                            !it->second.sizes.front().is_shape();
        return (counts ? "n = " : "") + joined(sizes, ", ") + ", " + joined(options.cases.inputs, ", ") + " input";
    };

    // A racy part's hazards: exact, or a lower bound when the print limit hid some.
    struct finding {
        long long hazards = 0;
        bool at_least = false;
        std::string first;
        std::vector<std::string> batch;  // the parts of its run
        long long batch_found = 0;       // the hazards of that whole run
    };
    std::map<std::string, finding> racy;
    std::vector<std::vector<race_target>> batches = {targets};
    while (!batches.empty()) {
        if (options.stop != nullptr && options.stop->load()) return {};  // no run started for nothing
        const std::vector<race_target> batch = batches.back();
        batches.pop_back();
        std::vector<std::string> ids;
        for (const auto& t : batch) ids.push_back(t.part);
        correctness_request request = options.cases;
        request.parts = ids;
        request.wait_for_go = options.turn != nullptr;
        const std::vector<std::string> argv =
            racecheck_argv(tool, worker_argv(worker, correctness_job_of(request, sandbox_mode::relaxed)));
        worker_reply reply;
        std::vector<std::string> env;
        if (options.turn != nullptr) {
            options.turn->worker_starts();
            reply = [&](const nlohmann::json& ev) { return options.turn->answer(ev); };
            // Every module loaded (and instrumented by compute-sanitizer) when the worker
            // creates its context, before it is ready, rather than at each kernel's first
            // launch, while the GPU is held.
            env.push_back("CUDA_MODULE_LOADING=EAGER");
        }
        const worker_run run = run_tool(argv, options.timeout_seconds, reply, env, options.stop);
        if (run.stopped) return {};  // its caller no longer wants any of it
        const racecheck_result found = parse_racecheck(run.output_tail, kernels);
        if (!found.parsed) {
            std::string tail = run.output_tail.substr(run.output_tail.size() > 300 ? run.output_tail.size() - 300 : 0);
            while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
            skip_all(batch, "racecheck gave no summary (it " + run.describe_end() + "): " + tail);
            continue;
        }
        std::set<std::string> finished;
        for (const auto& ev : run.events)
            if (is_event<part_correctness_event>(ev)) finished.insert(event_part(ev));
        const bool have_events = !run.events.empty();
        const bool limited = found.displayed >= racecheck_print_limit;
        const bool errors_unread = run.exited_normally() && run.exit_code == racecheck_exit_code &&
                                   found.by_kernel.empty() && found.unattributed == 0;
        bool earlier_reports = false;  // past the limit, the reports of later parts were not printed
        for (const auto& t : batch) {
            const auto it = found.by_kernel.find(t.kernel);
            const bool unsettled = found.unattributed > 0 || errors_unread || (limited && earlier_reports);
            if (it == found.by_kernel.end() && unsettled && batch.size() > 1) {
                batches.push_back({t});  // run it on its own: then every report is its own
                continue;
            }
            if (it != found.by_kernel.end() || found.unattributed > 0) {
                finding f;
                f.hazards = it != found.by_kernel.end() ? it->second.hazards : found.unattributed;
                f.first = it != found.by_kernel.end() ? it->second.first : found.first_unattributed;
                f.at_least = limited;
                f.batch = ids;
                f.batch_found = found.found;
                racy[t.part] = f;
                out[t.part] = {"races", check_status::failed, ""};  // the message comes last
                earlier_reports = true;
            } else if (errors_unread) {
                out[t.part] = {"races", check_status::failed,
                               "racecheck reported errors in " + t.kernel_for_people + " (" + run.describe_end() +
                                   ") without a hazard report the grader could read"};
            } else if (have_events ? !finished.count(t.part)
                                   : !(run.exited_normally() &&
                                       (run.exit_code == 0 || run.exit_code == racecheck_exit_code))) {
                out[t.part] = skipped("races", "the worker under racecheck " + run.describe_end() +
                                                   " before it finished part " + t.part);
            } else {
                out[t.part] = {"races", check_status::passed,
                               "racecheck: no shared-memory hazard in " + t.kernel_for_people + " (" + cases_of_kind(t.kind) + ")"};
            }
        }
    }
    // The summary counts the hazards past the print limit too: a run's count is all one
    // part's when every other part of that run turned out clean.
    for (const auto& t : targets) {
        if (!racy.count(t.part)) continue;
        finding& f = racy[t.part];
        const bool others_clean = std::all_of(f.batch.begin(), f.batch.end(), [&](const std::string& id) {
            return id == t.part || (out.count(id) && out[id].status == check_status::passed);
        });
        if (f.at_least && others_clean) {
            f.hazards = f.batch_found;
            f.at_least = false;
        }
        out[t.part].detail = race_message(t, f.hazards, f.at_least, f.first);
    }
    return out;
}

check_result check_sanitize(const std::string& worker, const std::string& part_id, std::uint64_t seed,
                            double tolerance_c, const std::map<std::string, kind_cases>& cases, bool gpu) {
    if (!gpu) return skipped("sanitize", "compute-sanitizer needs a GPU");
    const std::string tool = find_tool("compute-sanitizer");
    if (tool.empty()) return skipped("sanitize", "compute-sanitizer not found");
    std::string detail;
    int total = 0;
    for (const char* which : {"memcheck", "racecheck"}) {
        // A few sizes around the block and warp edges (the kinds' sanitizer_sizes): the tools are slow.
        correctness_request request;
        request.parts = {part_id};
        request.seed = seed;
        request.tolerance_c = tolerance_c;
        request.inputs = {"random", "ones"};
        request.problems = cases;
        std::vector<std::string> argv = {tool, "--tool", which, "--print-limit", "10"};
        for (auto& a : worker_argv(worker, correctness_job_of(request, sandbox_mode::relaxed))) argv.push_back(a);
        const worker_run run = run_tool(argv, 600);
        const sanitizer_summary s = parse_sanitizer(run.output_tail);
        if (!s.parsed) return skipped("sanitize", std::string(which) + " gave no summary: " + run.describe_end());
        total += s.total();
        detail += std::string(detail.empty() ? "" : "; ") + which + ": " + std::to_string(s.errors) + " error(s)";
        if (std::string(which) == "racecheck") detail += ", " + std::to_string(s.warnings) + " race warning(s)";
        if (!s.findings.empty()) detail += " (" + s.findings.front() + ")";
    }
    return {"sanitize", total == 0 ? check_status::passed : check_status::failed, detail};
}

namespace {

// Fills `traffic`, or returns why ncu could not read the counters.
std::string measure_wavefronts(const std::string& ncu, const std::string& worker, const std::string& part_id,
                               const char* version, std::uint64_t seed, const problem_size& size,
                               shared_traffic& traffic) {
    const char* metrics =
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
    std::vector<std::string> argv = {ncu, "--clock-control", "none", "--csv", "--metrics", metrics};
    for (auto& a : worker_argv(worker, profile_job_of({part_id, version, seed, size}))) argv.push_back(a);
    const worker_run run = run_tool(argv, 300);
    const ncu_metrics m = parse_ncu_csv(run.output_tail);
    if (!m.error.empty()) return m.error;
    auto get = [&](const char* name) { return m.sums.count(name) ? m.sums.at(name) : 0.0; };
    traffic.load = shared_conflict_factor(get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
                                          get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"));
    traffic.store = shared_conflict_factor(get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
                                           get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"));
    return "";
}

}  // namespace

check_result check_bank_wavefronts(const std::string& worker, const std::string& part_id, std::uint64_t seed,
                                   const problem_size& size, double limit, bool graded, bool gpu) {
    if (!gpu) return skipped("bank_wavefronts", "needs a GPU and Nsight Compute: the CPU emulator has no counters");
    const std::string ncu = find_tool("ncu");
    if (ncu.empty()) return skipped("bank_wavefronts", "Nsight Compute (ncu) not found");
    shared_traffic mine;
    const std::string error = measure_wavefronts(ncu, worker, part_id, "student", seed, size, mine);
    if (!error.empty()) return skipped("bank_wavefronts", "ncu could not read the counters: " + error);
    shared_traffic base;
    const bool have_base = measure_wavefronts(ncu, worker, part_id, "baseline", seed, size, base).empty();
    return bank_wavefronts_verdict(mine, have_base ? std::optional<shared_traffic>(base) : std::nullopt, limit, graded);
}

}  // namespace course
