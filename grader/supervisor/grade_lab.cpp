#include "supervisor/grade_lab.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/code_place.hpp"
#include "core/hints.hpp"
#include "core/inputs.hpp"
#include "core/report.hpp"
#include "core/sha256.hpp"
#include "core/timing_analysis.hpp"
#include "core/tool_output.hpp"
#include "supervisor/technique_checks.hpp"
#include "supervisor/worker_process.hpp"

namespace course {

namespace {

std::string join(const std::vector<std::string>& items, const char* sep = ",") {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
    return out;
}

template <typename T>
std::string join_numbers(const std::vector<T>& items) {
    std::string out;
    for (const auto& x : items) out += (out.empty() ? "" : ",") + std::to_string(x);
    return out;
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

// The last few lines a dead worker printed: usually the reason it died.
std::string last_lines(const std::string& text, int lines) {
    std::size_t pos = text.size();
    while (pos > 0 && (text[pos - 1] == '\n' || text[pos - 1] == ' ')) --pos;
    std::size_t start = pos;
    for (int seen = 0; start > 0; --start) {
        if (text[start - 1] == '\n' && ++seen == lines) break;
    }
    return text.substr(start, pos - start);
}

struct part_meta {
    std::string id, title, kernel, kind;
    std::uint64_t elements_per_block = 0;
    std::string hint;
};

struct session {
    session(const grade_options& o, const policy& p) : opt(o), pol(p) {}
    const grade_options& opt;
    const policy& pol;
    std::string worker;  // path of the worker binary in use
    std::string backend;
    std::uint64_t seed = 0;
    std::vector<part_meta> parts;
    std::string student_source, student_object;

    void say(const std::string& line) const {
        if (opt.progress) opt.progress(line);
    }
};

bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

// Names the graded file in the result: its path, the hash of its bytes, and a note when
// it is not the student's own labs/ file or is newer than the worker that grades it.
void describe_source(const grade_options& opt, const std::string& file, const std::string& worker, lab_result& r) {
    if (file.empty()) return;
    // Compared without links: the build may know the course by another path than ./grade.
    const auto canonical = [](const std::string& p) {
        std::error_code ec;
        const auto c = std::filesystem::weakly_canonical(p, ec);
        return ec ? p : c.string();
    };
    r.source.path = opt.course_root.empty() ? file : shown_source_path(canonical(file), canonical(opt.course_root));
    r.source.sha256 = sha256_file(file);
    if (!opt.course_root.empty()) {
        // First: it changes what every other line of the report is about.
        if (const std::string note = graded_source_note(r.source.path); !note.empty())
            r.notes.insert(r.notes.begin(), note);
    }
    if (worker.empty()) return;
    std::error_code e1, e2;
    const auto source_time = std::filesystem::last_write_time(file, e1);
    const auto worker_time = std::filesystem::last_write_time(worker, e2);
    // ./grade builds first; only --no-build or a direct run of the grader can get here.
    if (!e1 && !e2 && source_time > worker_time)
        r.notes.push_back(r.source.path + " changed after this grader was built: the grade is of the older "
                                          "build (./grade without --no-build rebuilds first)");
}

std::string worker_path(const grade_options& opt, const char* backend) {
    return opt.worker_dir + "/" + opt.lab + "_worker_" + backend;
}

// Runs `describe`; returns the hello event, or an error text.
std::pair<nlohmann::json, std::string> describe(const std::string& worker) {
    const worker_run run = run_worker({worker, "--events-fd", "3", "describe"}, {60, 120});
    nlohmann::json sandbox;  // the worker reports its sandbox before the hello
    for (const auto& ev : run.events) {
        if (ev.value("event", "") == "sandbox") sandbox = ev;
        if (ev.value("event", "") == "hello") {
            nlohmann::json hello = ev;
            hello["sandbox"] = sandbox;
            return {hello, ""};
        }
        if (ev.value("event", "") == "error") return {nlohmann::json(), ev.value("message", "unknown error")};
    }
    return {nlohmann::json(), "the worker " + run.describe_end() + ": " + last_lines(run.output_tail, 5)};
}

// The graded file and its object: the caller's, else what the build recorded beside the
// worker (<worker>.json), else what an older worker reports in its hello.
std::pair<std::string, std::string> student_files(const grade_options& opt, const std::string& worker,
                                                  const nlohmann::json& hello) {
    std::string source = hello.value("student_source", ""), object = hello.value("student_object", "");
    if (std::ifstream in(worker + ".json"); in) {
        const auto recorded = nlohmann::json::parse(in, nullptr, false);
        if (recorded.is_object()) {
            source = recorded.value("student_source", source);
            object = recorded.value("student_object", object);
        }
    }
    if (!opt.student_source.empty()) source = opt.student_source;
    if (!opt.student_object.empty()) object = opt.student_object;
    return {source, object};
}

// Picks the backend and learns the lab's parts. Returns "" or an infrastructure error.
std::string environment_check(session& s, lab_result& r) {
    const std::string gpu = worker_path(s.opt, "gpu");
    const std::string emu = worker_path(s.opt, "emulated");
    nlohmann::json hello;
    std::string why_not_gpu;
    if (s.opt.force_emulate) {
        why_not_gpu = "--emulate";
    } else if (!executable(gpu)) {
        why_not_gpu = "this build has no GPU grader (no CUDA Toolkit when it was configured)";
    } else {
        std::string err;
        std::tie(hello, err) = describe(gpu);
        if (err.empty()) {
            s.worker = gpu;
            s.backend = "gpu";
        } else {
            why_not_gpu = "no usable GPU: " + err;
        }
    }
    if (s.worker.empty()) {
        if (!executable(emu)) return why_not_gpu + ", and the CPU emulation grader for " + s.opt.lab + " is not built";
        std::string err;
        std::tie(hello, err) = describe(emu);
        if (!err.empty()) return "the CPU emulation grader failed to start: " + err;
        s.worker = emu;
        s.backend = "emulated";
        r.notes.push_back("Grading correctness only, on the CPU emulator (" + why_not_gpu +
                          "); timing needs an NVIDIA GPU.");
    }
    r.backend = s.backend;
    r.device = hello["device"].value("name", "unknown device");
    if (hello["sandbox"].is_object()) r.notes.push_back(hello["sandbox"].value("note", "Sandbox: not reported."));
    const auto [source, object] = student_files(s.opt, s.worker, hello);
    s.student_source = source;
    s.student_object = object;
    describe_source(s.opt, s.student_source, s.worker, r);
    for (const auto& p : hello["parts"]) {
        s.parts.push_back({p.value("id", ""), p.value("title", ""), p.value("kernel", ""), p.value("kind", ""),
                           p.value("elements_per_block", std::uint64_t{0}), p.value("hint", "")});
    }
    if (s.parts.empty()) return "the worker reported no parts for " + s.opt.lab;
    return "";
}

// Runs a phase over `ids`, restarting the worker for the parts it did not finish when it
// dies: a crash or hang in one part costs that part only. `make_args` builds the argument
// list for a set of part ids; `done_event` is the event that closes a part.
// `on_unfinished` receives the part a dead worker was on and why.
void run_phase(const session& s, std::vector<std::string> ids, const worker_limits& limits,
               const std::function<std::vector<std::string>(const std::vector<std::string>&)>& make_args,
               const std::set<std::string>& done_events, const std::function<void(const nlohmann::json&)>& on_event,
               const std::function<void(const std::string& id, const worker_run&, const std::string& in_flight)>&
                   on_unfinished,
               const std::function<void(const worker_run&)>& on_run = {}) {
    while (!ids.empty()) {
        std::set<std::string> finished;
        std::string current_part, in_flight;
        std::vector<std::string> argv = {s.worker, "--events-fd", "3"};
        for (auto& a : make_args(ids)) argv.push_back(a);
        const worker_run run = run_worker(argv, limits, [&](const nlohmann::json& ev) {
            const std::string type = ev.value("event", "");
            if (type == "case_begin") {
                current_part = ev.value("part", "");
                in_flight = ev.value("input", "") + " input, " + ev.value("size", "");
            } else if (type == "timing_begin") {
                current_part = ev.value("part", "");
                in_flight = "timing";
            } else if (done_events.count(type)) {
                finished.insert(ev.value("part", ""));
            }
            on_event(ev);
        });
        if (on_run) on_run(run);
        std::vector<std::string> left;
        for (const auto& id : ids)
            if (!finished.count(id)) left.push_back(id);
        if (left.empty()) return;
        // The worker stopped early. Blame the part it was on (or the first unfinished one).
        const std::string culprit =
            std::find(left.begin(), left.end(), current_part) != left.end() ? current_part : left.front();
        on_unfinished(culprit, run, current_part == culprit ? in_flight : "");
        left.erase(std::find(left.begin(), left.end(), culprit));
        ids = left;
    }
}

// --show-output: at most this much of what one part's kernels print.
constexpr std::size_t shown_output_lines = 200;
constexpr std::size_t shown_output_bytes = 16 * 1024;

// The first lines of a run's output, within the bounds above, and how many more there were.
std::string shown_output(const worker_run& run) {
    const std::string& head = run.output_head;
    std::size_t end = 0, lines = 0;
    while (end < head.size() && lines < shown_output_lines) {
        const std::size_t nl = head.find('\n', end);
        end = nl == std::string::npos ? head.size() : nl + 1;  // a line cut by the byte bound counts as shown
        ++lines;
    }
    std::string text = head.substr(0, end);
    if (!text.empty() && text.back() != '\n') text += "\n";
    if (run.output_lines > lines)
        text += fmt::format("... {} more line(s) not shown ({} bytes in all)\n", run.output_lines - lines,
                            run.output_bytes);
    return text;
}

// run_phase, and with --show-output one worker per part, so that what a run prints is
// that part's; the output then goes to grade_options::kernel_output.
void run_parts(const session& s, const std::vector<std::string>& ids, worker_limits limits,
               const std::function<std::vector<std::string>(const std::vector<std::string>&)>& make_args,
               const std::set<std::string>& done_events, const std::function<void(const nlohmann::json&)>& on_event,
               const std::function<void(const std::string& id, const worker_run&, const std::string& in_flight)>&
                   on_unfinished) {
    if (!s.opt.kernel_output) return run_phase(s, ids, limits, make_args, done_events, on_event, on_unfinished);
    limits.keep_first = shown_output_bytes;
    for (const auto& id : ids) {
        std::string output;  // a part's worker runs once: it is not restarted for a part it was on
        run_phase(s, {id}, limits, make_args, done_events, on_event, on_unfinished,
                  [&](const worker_run& run) { output += shown_output(run); });
        s.opt.kernel_output(id, output);
    }
}

// The line of the lab file at an address of the worker's executable (the emulator's
// fault messages carry one), through addr2line and the line tables of the lab objects.
std::string lab_file_line(const session& s, const std::string& hex) {
    static const std::string tool = find_tool("addr2line");
    if (tool.empty() || hex.rfind("0x", 0) != 0) return "";
    worker_limits limits;
    limits.quiet_seconds = limits.total_seconds = 20;
    limits.output_counts_as_activity = true;
    const worker_run run = run_worker({tool, "-e", s.worker, "-i", hex}, limits);
    return run.exited_normally() && run.exit_code == 0 ? line_in_file(run.output_tail, "kernels.cu") : "";
}

void correctness_phase(const session& s, std::map<std::string, part_result>& results) {
    const bool emulated = s.backend == "emulated";
    const auto& sizes = emulated ? s.pol.sizes_emulated : s.pol.sizes;
    const auto& record_sizes = emulated ? s.pol.record_sizes_emulated : s.pol.record_sizes;
    const auto& shapes = emulated ? s.pol.shapes_emulated : s.pol.shapes;
    std::map<std::string, std::vector<case_record>> records;
    std::vector<std::string> ids;
    for (const auto& p : s.parts) ids.push_back(p.id);
    s.say("correctness: " + std::to_string(ids.size()) + " part(s) on the " +
          (emulated ? "CPU emulator" : "GPU"));

    run_parts(
        s, ids, {s.pol.case_timeout_seconds, 3600},
        [&](const std::vector<std::string>& which) {
            return std::vector<std::string>{"correctness",
                                            "--parts",
                                            join(which),
                                            "--seed",
                                            std::to_string(s.seed),
                                            "--tolerance-c",
                                            fmt::format("{}", s.pol.tolerance_c),
                                            "--inputs",
                                            join(s.pol.reduction_inputs),
                                            "--sizes",
                                            join_numbers(sizes),
                                            "--record-sizes",
                                            join_numbers(record_sizes),
                                            "--shapes",
                                            join(shapes)};
        },
        {"part_correctness"},
        [&](const nlohmann::json& ev) {
            const std::string type = ev.value("event", "");
            if (type == "case_end") {
                case_record rec = ev.at("record").get<case_record>();
                rec.detail = place_code(rec.detail, [&](const std::string& hex) { return lab_file_line(s, hex); });
                records[rec.part].push_back(rec);
            } else if (type == "part_correctness") {
                auto& c = results[ev.value("part", "")].correctness;
                c.cases = ev.value("cases", 0);
                c.failed = ev.value("failed", 0);
                c.status = ev.value("passed", false) ? correctness_status::passed
                           : ev.value("sticky", false) ? correctness_status::crashed
                                                       : correctness_status::failed;
                if (ev.contains("warp_shuffles")) c.warp_shuffles = ev.value("warp_shuffles", std::uint64_t{0});
            }
        },
        [&](const std::string& id, const worker_run& run, const std::string& in_flight) {
            auto& c = results[id].correctness;
            c.status = run.timed_out ? correctness_status::timed_out : correctness_status::crashed;
            c.message = "the grader's worker " + run.describe_end() +
                        (in_flight.empty() ? "" : " while running the " + in_flight + " case");
            const std::string tail = last_lines(run.output_tail, 6);
            if (!tail.empty()) c.message += "; its last output:\n" + tail;
            c.cases = static_cast<int>(records[id].size()) + 1;
            c.failed = 1;
            for (const auto& r : records[id])
                if (!r.ok) ++c.failed;
        });

    for (const auto& meta : s.parts) {
        auto& c = results[meta.id].correctness;
        const auto& recs = records[meta.id];
        std::set<std::string> kinds_seen;
        for (const auto& rec : recs) {
            if (rec.fault) ++c.faults;
            // The emulator's watchdog stopped a kernel that would hang a GPU.
            if (rec.timed_out && c.status == correctness_status::failed) c.status = correctness_status::timed_out;
            if (!rec.ok && kinds_seen.insert(rec.input).second) c.failures.push_back(rec);
            if (rec.ok && rec.tolerance > 0)
                c.worst_error_ratio = std::max(c.worst_error_ratio, std::fabs(rec.got - rec.expected) / rec.tolerance);
        }
        c.hint = meta.kind == "transpose" ? movement_hint(recs, 32)
                                          : reduction_hint(recs, meta.elements_per_block, meta.hint);
        s.say(fmt::format("  part {}: {}", meta.id, to_string(c.status)));
    }
}

timing_samples samples_from_event(const nlohmann::json& ev) {
    timing_samples t;
    t.problem = ev.value("problem", "");
    t.bytes = ev.value("bytes", 0.0);
    t.copy_gbps = ev.value("copy_gbps", 0.0);
    t.peak_gbps = ev.value("peak_gbps", 0.0);
    const auto& ks = ev.at("kernels");
    for (int k = 0; k < 3 && k < static_cast<int>(ks.size()); ++k) {
        t.kernel[k] = ks[k].value("kernel", "");
        t.ms[k] = ks[k].at("ms").get<std::vector<double>>();
    }
    return t;
}

void timing_phase(const session& s, std::map<std::string, part_result>& results) {
    std::vector<std::string> ids;
    for (const auto& p : s.parts) {
        auto& t = results[p.id].timing;
        if (results[p.id].correctness.status == correctness_status::passed) {
            ids.push_back(p.id);
        } else {
            t.reason = "not timed: the kernel is not correct";
        }
    }
    if (ids.empty()) return;
    const lab_policy& lp = s.pol.lab(s.opt.lab);
    const timing_rule rule{lp.threshold_fraction, lp.floor_fraction, s.pol.confidence, s.pol.implausible_fraction};
    std::map<std::string, timing_samples> samples;
    std::map<std::string, std::string> recheck;

    auto measure = [&](const std::vector<std::string>& which, int rounds, int pass) {
        s.say(fmt::format("performance: {} round(s) for part(s) {}", rounds, join(which, ", ")));
        run_phase(
            s, which, {s.pol.timing_timeout_seconds, 3600},
            [&](const std::vector<std::string>& w) {
                std::vector<std::string> args = {"timing",
                                                 "--parts",
                                                 join(w),
                                                 "--seed",
                                                 std::to_string(s.seed + pass),
                                                 "--tolerance-c",
                                                 fmt::format("{}", s.pol.tolerance_c),
                                                 "--n",
                                                 std::to_string(s.pol.reduction_n),
                                                 "--shape",
                                                 s.pol.transpose_shape,
                                                 "--records",
                                                 std::to_string(s.pol.records_n),
                                                 "--rounds",
                                                 std::to_string(rounds),
                                                 "--warmup",
                                                 std::to_string(s.pol.warmup),
                                                 "--flush-bytes",
                                                 std::to_string(s.pol.flush_bytes)};
                if (!s.opt.benchmark_out.empty()) {
                    args.push_back("--benchmark-out");
                    args.push_back(pass == 0 ? s.opt.benchmark_out : s.opt.benchmark_out + ".remeasure.json");
                }
                return args;
            },
            {"timing", "timing_failed"},
            [&](const nlohmann::json& ev) {
                const std::string type = ev.value("event", "");
                const std::string id = ev.value("part", "");
                if (type == "timing") {
                    const timing_samples fresh = samples_from_event(ev);
                    auto& acc = samples[id];
                    if (acc.ms[0].empty()) {
                        acc = fresh;
                    } else {
                        for (int k = 0; k < 3; ++k) acc.ms[k].insert(acc.ms[k].end(), fresh.ms[k].begin(), fresh.ms[k].end());
                    }
                    if (!ev.value("recheck", "").empty()) recheck[id] = ev.value("recheck", "");
                } else if (type == "timing_failed") {
                    results[id].timing.status = timing_status::failed;
                    results[id].timing.reason = "timing failed: " + ev.value("message", "");
                }
            },
            [&](const std::string& id, const worker_run& run, const std::string&) {
                results[id].timing.status = timing_status::failed;
                results[id].timing.reason = "timing failed: the worker " + run.describe_end();
            });
    };

    measure(ids, s.pol.rounds, 0);
    const auto merge_benchmark_json = [&] {
        // A second measurement wrote its own Google Benchmark file; fold it into the first.
        if (s.opt.benchmark_out.empty()) return;
        const std::string extra = s.opt.benchmark_out + ".remeasure.json";
        std::ifstream a(s.opt.benchmark_out), b(extra);
        if (!b) return;
        auto first = nlohmann::json::parse(a, nullptr, false);
        auto second = nlohmann::json::parse(b, nullptr, false);
        if (!first.is_discarded() && !second.is_discarded()) {
            for (auto& bench : second["benchmarks"]) first["benchmarks"].push_back(bench);
            write_file_atomic(s.opt.benchmark_out, first.dump(2) + "\n");
        }
        std::remove(extra.c_str());
    };
    std::vector<std::string> undecided;
    for (const auto& id : ids) {
        if (!samples.count(id)) continue;
        if (analyze_timing(samples[id], rule).verdict == perf_verdict::inconclusive) undecided.push_back(id);
    }
    if (!undecided.empty() && s.pol.max_rounds > s.pol.rounds) {
        s.say("performance: too noisy to decide; measuring again");
        measure(undecided, s.pol.max_rounds - s.pol.rounds, 1);
        merge_benchmark_json();
    }
    for (const auto& id : ids) {
        auto& t = results[id].timing;
        if (!samples.count(id)) {
            if (t.status != timing_status::failed) {
                t.status = timing_status::failed;
                t.reason = "timing failed: no samples";
            }
            continue;
        }
        t = analyze_timing(samples[id], rule);
        if (recheck.count(id)) {
            t.recheck = recheck[id];
            t.credit = 0;
        }
    }
}

void checks_phase(const session& s, lab_result& r, std::map<std::string, part_result>& results) {
    const bool gpu = s.backend == "gpu";
    const lab_policy& lp = s.pol.lab(s.opt.lab);
    auto wanted = [&](const char* name) {
        return std::find(lp.checks.begin(), lp.checks.end(), name) != lp.checks.end();
    };
    if (wanted("no_libraries"))
        r.checks.push_back(check_no_libraries(s.student_source, s.student_object, s.pol.forbidden_libraries));
    // The student's kernels live in namespace <lab>_student (docs/architecture.md).
    const std::string ns = s.opt.lab + "_student";
    for (const auto& p : s.parts) {
        auto& checks = results[p.id].checks;
        if (wanted("uses_shuffle")) {
            checks.push_back(gpu ? check_uses_shuffle(s.student_object, mangled_prefix(ns, p.kernel), p.kernel)
                                 : check_emulated_shuffles(p.kernel, results[p.id].correctness));
        }
        if (wanted("bank_wavefronts") || s.opt.profile) {
            s.say("Nsight Compute counters: part " + p.id);
            checks.push_back(check_bank_wavefronts(s.worker, p.id, lp.max_wavefronts_per_request,
                                                   wanted("bank_wavefronts"), gpu));
        }
        if (s.opt.sanitize) {
            s.say("compute-sanitizer: part " + p.id);
            checks.push_back(check_sanitize(s.worker, p.id, s.seed, gpu));
        }
    }
    // races: every race-checked part that is correct, in one racecheck run.
    std::vector<race_target> targets;
    for (const auto& p : s.parts) {
        if (std::find(lp.race_check_parts.begin(), lp.race_check_parts.end(), p.id) == lp.race_check_parts.end())
            continue;
        if (results[p.id].correctness.status == correctness_status::passed) {
            targets.push_back({p.id, ns + "::" + p.kernel, p.kernel});
        } else {
            results[p.id].checks.push_back({"races", check_status::skipped, "not checked: the kernel is not correct"});
        }
    }
    if (targets.empty()) return;
    if (gpu) {
        std::vector<std::string> ids;
        for (const auto& t : targets) ids.push_back(t.part);
        s.say("compute-sanitizer racecheck: part(s) " + join(ids, ", "));
    }
    const race_options options{s.seed, s.pol.race_check_sizes, s.pol.race_check_inputs,
                               s.pol.race_check_timeout_seconds};
    for (auto& [id, check] : check_races(s.worker, targets, options, gpu)) results[id].checks.push_back(check);
}

}  // namespace

void score_lab(lab_result& r, const policy& pol) {
    if (!r.infrastructure_error.empty()) {
        r.exit_code = 2;
        r.passed = false;
        r.summary = summary_line(r);
        return;
    }
    if (!r.build.kind.empty()) {  // the student's file did not build: no part was run (max_score is the caller's)
        r.exit_code = 1;
        r.passed = false;
        r.score = 0;
        r.summary = summary_line(r);
        return;
    }
    const lab_policy& lp = pol.lab(r.lab);
    const bool gpu = r.backend == "gpu";
    const bool perf_in_max = gpu || pol.emulated_performance == "pending";
    const double part_max = r.parts.empty() ? 0 : lp.points / r.parts.size();
    r.score = r.max_score = 0;
    bool all_ok = !r.parts.empty();
    for (auto& part : r.parts) {
        const bool correct = part.correctness.status == correctness_status::passed;
        // What the failed checks of the lab (no_libraries) and of the part cost it: the
        // rule is penalty_of() in core/scoring, the same on every backend.
        part.penalty = check_penalty::none;
        part.penalty_reason.clear();
        for (const auto* checks : {&r.checks, &part.checks}) {
            for (const auto& c : *checks) {
                if (c.status != check_status::failed) continue;
                const check_penalty p = penalty_of(c.name, perf_in_max);
                if (p == part.penalty || worse(p, part.penalty) != p) continue;
                part.penalty = p;
                part.penalty_reason = "check " + c.name + " failed: " + c.detail;
            }
        }
        const double credit = part.timing.status == timing_status::measured ? part.timing.credit : 0.0;
        const part_points pts = score_part(part_max, lp.correctness_weight, correct, credit, part.penalty);
        part.correctness_max = part_max * lp.correctness_weight;
        part.performance_max = perf_in_max ? part_max * (1.0 - lp.correctness_weight) : 0.0;
        part.correctness_points = pts.correctness;
        part.performance_points = perf_in_max ? pts.performance : 0.0;
        r.score += part.score();
        r.max_score += part.max_points();
        bool ok = correct && part.penalty == check_penalty::none;
        if (gpu) {
            const auto& t = part.timing;
            ok = ok && t.status == timing_status::measured && t.verdict == perf_verdict::meets_target &&
                 t.recheck.empty() && !t.implausible;
        }
        all_ok = all_ok && ok;
    }
    r.passed = all_ok;
    r.exit_code = all_ok ? 0 : 1;
    r.summary = summary_line(r);
}

lab_result failed_build_result(const grade_options& opt, const policy& pol, const build_failure& failure,
                               const std::string& source) {
    lab_result r;
    r.lab = opt.lab;
    r.started_at = utc_now();
    r.build = failure;
    describe_source(opt, source, "", r);
    try {
        // Out of what a run on this machine would have been out of: performance counts only
        // with a GPU grader (a guess: whether a GPU is usable is known only by running it).
        const lab_policy& lp = pol.lab(opt.lab);
        const bool gpu = !opt.force_emulate && executable(worker_path(opt, "gpu"));
        r.max_score = gpu || pol.emulated_performance == "pending" ? lp.points : lp.points * lp.correctness_weight;
        score_lab(r, pol);
    } catch (const std::exception& e) {
        r.build = {};
        r.infrastructure_error = e.what();
        score_lab(r, pol);
    }
    return r;
}

lab_result grade_lab(const grade_options& opt, const policy& pol) {
    lab_result r;
    r.lab = opt.lab;
    r.started_at = utc_now();
    session s(opt, pol);
    s.seed = opt.seed ? *opt.seed : fresh_seed();
    r.seed = s.seed;

    try {
        (void)pol.lab(opt.lab);
        if (const std::string err = environment_check(s, r); !err.empty()) {
            r.infrastructure_error = err;
            score_lab(r, pol);
            return r;
        }
        std::map<std::string, part_result> results;
        correctness_phase(s, results);
        if (s.backend == "gpu") {
            timing_phase(s, results);
        } else {
            for (auto& [id, pr] : results) pr.timing.reason = "not timed: the CPU emulator checks correctness only";
        }
        checks_phase(s, r, results);
        for (const auto& meta : s.parts) {
            part_result pr = results[meta.id];
            pr.id = meta.id;
            pr.title = meta.title;
            pr.kernel = meta.kernel;
            r.parts.push_back(pr);
        }
    } catch (const std::exception& e) {
        r.infrastructure_error = e.what();
    }
    score_lab(r, pol);
    return r;
}

}  // namespace course
