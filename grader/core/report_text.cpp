#include <algorithm>
#include <utility>
#include <cmath>

#include <fmt/format.h>

#include "core/report.hpp"

namespace course {

namespace {

struct palette {
    bool on;
    std::string paint(const std::string& s, const char* code) const {
        return on ? fmt::format("\033[{}m{}\033[0m", code, s) : s;
    }
    std::string good(const std::string& s) const { return paint(s, "32"); }
    std::string bad(const std::string& s) const { return paint(s, "31;1"); }
    std::string warn(const std::string& s) const { return paint(s, "33"); }
    std::string dim(const std::string& s) const { return paint(s, "2"); }
    std::string bold(const std::string& s) const { return paint(s, "1"); }
};

std::string fmt_value(double x) {
    if (std::isnan(x)) return "NaN";
    return fmt::format("{:.9g}", x);
}

std::string points(double x) {
    return std::fabs(x - std::round(x)) < 0.05 ? fmt::format("{:.0f}", x) : fmt::format("{:.1f}", x);
}

std::string correctness_word(const correctness_result& c, const palette& p) {
    switch (c.status) {
    case correctness_status::passed: return p.good("passed");
    case correctness_status::failed: return p.bad("FAILED");
    case correctness_status::crashed: return p.bad("CRASHED");
    case correctness_status::timed_out: return p.bad("TIMED OUT");
    case correctness_status::not_run: return p.warn("not run");
    }
    return "?";
}

// What a failure says, its input kind aside.
std::string failure_text(const case_record& f) {
    if (f.fault) return f.detail;
    std::string text = fmt::format("expected {}, got {}", fmt_value(f.expected), fmt_value(f.got));
    if (f.tolerance > 0) text += fmt::format(" (tolerance {:.3g})", f.tolerance);
    if (!f.detail.empty()) text += fmt::format("; {}", f.detail);
    return text;
}

bool is_rerun(const std::string& input) {
    const std::string suffix = ", changed";
    return input.size() > suffix.size() && input.compare(input.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The first failure of each input kind, but a failure that does not depend on the input
// (the same size and the same words on several kinds: a fault, a refused launch) once,
// with the kinds it happened on. The re-runs on changed inputs are not kinds of their own.
void render_failures(std::string& out, const std::vector<case_record>& failures) {
    struct group {
        std::string size, text;
        std::vector<std::string> inputs;
    };
    std::vector<group> groups;
    std::size_t kinds = 0;
    for (const auto& f : failures) {
        if (!is_rerun(f.input)) ++kinds;
        const std::string text = failure_text(f);
        auto same = std::find_if(groups.begin(), groups.end(),
                                 [&](const group& g) { return g.size == f.size && g.text == text; });
        if (same == groups.end()) {
            groups.push_back({f.size, text, {f.input}});
        } else {
            same->inputs.push_back(f.input);
        }
    }
    for (const auto& g : groups) {
        const std::size_t fresh = static_cast<std::size_t>(
            std::count_if(g.inputs.begin(), g.inputs.end(), [](const std::string& i) { return !is_rerun(i); }));
        std::string who;
        if (fresh > 1 && fresh == kinds) {
            who = "on every input kind";
        } else {
            for (std::size_t i = 0; i < g.inputs.size(); ++i)
                who += (i == 0 ? "" : i + 1 == g.inputs.size() ? " and " : ", ") + g.inputs[i];
            who += g.inputs.size() > 1 ? " inputs" : " input";
        }
        out += fmt::format("       {}, {}: {}\n", who, g.size, g.text);
    }
}

// A failed check is told in full once, under "Technique checks"; here it is named.
std::string penalty_pointer(const std::string& reason) {
    const std::string failed = " failed: ";
    const std::size_t at = reason.find(failed);
    if (reason.rfind("check ", 0) != 0 || at == std::string::npos) return reason;
    return reason.substr(0, at) + " failed (under Technique checks, below)";
}

void render_correctness(std::string& out, const lab_result& r, const palette& p) {
    out += p.bold("Correctness") + "\n";
    for (const auto& part : r.parts) {
        const auto& c = part.correctness;
        out += fmt::format("  {:<2} {:<24} {}", part.id, part.kernel, correctness_word(c, p));
        if (c.cases > 0) out += p.dim(fmt::format("  ({} of {} cases right)", c.cases - c.failed, c.cases));
        out += "\n";
        render_failures(out, c.failures);
        if (!c.message.empty()) out += fmt::format("       {}\n", c.message);
        if (!c.hint.empty()) out += fmt::format("       {} {}\n", p.warn("hint:"), c.hint);
        if (part.penalty == check_penalty::everything) {
            out += fmt::format("       {} {}\n", p.bad("no points:"), penalty_pointer(part.penalty_reason));
        } else if (part.penalty == check_penalty::performance && part.performance_max > 0) {
            out += fmt::format("       {} {}\n", p.bad("no performance points:"), penalty_pointer(part.penalty_reason));
        }
    }
}

std::string verdict_text(const timing_result& t, const palette& p) {
    if (t.implausible) return p.bad("implausible bandwidth: the result cannot be trusted");
    if (!t.recheck.empty()) return p.bad("re-check after timing failed");
    switch (t.verdict) {
    case perf_verdict::meets_target: return p.good("meets target");
    case perf_verdict::below_target: return p.bad("below target");
    case perf_verdict::inconclusive: return p.warn("inconclusive (too noisy to decide)");
    }
    return "";
}

void render_timing(std::string& out, const lab_result& r, const palette& p) {
    bool header = false;
    // Every part skipped for the same reason (the emulator): said once.
    const bool one_reason =
        r.parts.size() > 1 && std::all_of(r.parts.begin(), r.parts.end(), [&](const part_result& part) {
            return part.timing.status != timing_status::measured && part.timing.reason == r.parts.front().timing.reason;
        });
    if (one_reason) {
        const std::string& why = r.parts.front().timing.reason;
        out += "\n" + p.bold("Performance") + "\n" + fmt::format("  {}\n", p.dim((why.empty() ? "not measured" : why) +
                                                                              " (every part)"));
        return;
    }
    for (const auto& part : r.parts) {
        const auto& t = part.timing;
        if (!header) {
            out += "\n" + p.bold("Performance") + "\n";
            header = true;
        }
        if (t.status != timing_status::measured) {
            out += fmt::format("  {:<2} {}\n", part.id, p.dim(t.reason.empty() ? "not measured" : t.reason));
            continue;
        }
        out += fmt::format("  {:<2} {}, median of {} interleaved rounds, L2 flushed; copy roof {:.0f} GB/s\n",
                           part.id, t.problem, t.rounds, t.copy_gbps);
        out += p.dim(fmt::format("     {:<30} {:>9} {:>8} {:>7} {:>8}\n", "kernel", "time ms", "GB/s", "% copy",
                                 "x naive"));
        for (const auto& k : t.kernels) {
            const double naive_ms = t.kernels.front().median_ms;
            const std::string who = k.role == "student" ? "yours: " + k.kernel : k.role + ": " + k.kernel;
            out += fmt::format("     {:<30} {:>9.4f} {:>8.0f} {:>6.1f}% {:>7.2f}x\n", who, k.median_ms, k.gbps,
                               k.pct_of_copy, naive_ms / k.median_ms);
        }
        out += fmt::format("     speedup {:.2f}x (95% interval {:.2f}-{:.2f}); target {:.2f}x = {:.0f}% of the "
                           "reference's {:.2f}x: {}\n",
                           t.speedup, t.speedup_lo, t.speedup_hi, t.target,
                           t.reference_speedup > 0 ? 100.0 * t.target / t.reference_speedup : 0.0,
                           t.reference_speedup, verdict_text(t, p));
        if (!t.recheck.empty()) out += fmt::format("     {}\n", t.recheck);
    }
}

double per(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0.0 : static_cast<double>(a) / b; }

// What each column counts, and which way is better.
constexpr std::pair<const char*, const char*> counter_legend[] = {
    {"shared ld, st", "warp requests to shared memory (stores include atomics); fewer is better"},
    {"global ld", "warp requests that load from global memory; fewer is better"},
    {"sec/req", "32-byte sectors per global-load request: 4 for a warp of packed floats, 16 for float4 "
                "(wider is better); above 4 with 4-byte loads, scattered (worse)"},
    {"excess wf /el", "shared wavefronts beyond the conflict-free count, per input element: bank conflicts; 0 is best"},
    {"excess wr /el", "warp-requests beyond the whole warps the active lanes would fill, per element: divergence; "
                      "0 is best"},
    {"steps", "synchronisation epochs in which a warp touches shared memory; fewer is better"},
    {"barriers", "__syncthreads() passed, summed over blocks; fewer is better"},
    {"shuffles", "warp shuffles executed (lab 4 needs them)"},
};

// The emulator's counters of each part's versions on each drawn problem: what the
// technique checks read, per input element where they judge per element.
void render_counters(std::string& out, const lab_result& r, const palette& p) {
    bool header = false;
    for (const auto& part : r.parts) {
        if (part.counters.empty()) continue;
        if (!header) {
            out += "\n" + p.bold("Counters") +
                   p.dim(" (CPU emulator, totals over every launch of the problem; per input element where marked "
                         "/el; docs/emulator.md)") +
                   "\n";
            for (const auto& [column, meaning] : counter_legend)
                out += p.dim(fmt::format("     {:<14} {}\n", column, meaning));
            header = true;
        }
        std::string problem;
        for (const auto& v : part.counters) {
            if (v.problem != problem) {
                problem = v.problem;
                out += fmt::format("  {:<2} {}\n", part.id, problem);
                out += p.dim(fmt::format("     {:<34} {:>9} {:>9} {:>9} {:>7} {:>10} {:>10} {:>6} {:>8} {:>8}\n",
                                         "version", "shared ld", "shared st", "global ld", "sec/req", "excess wf",
                                         "excess wr", "steps", "barriers", "shuffles"));
                out += p.dim(fmt::format("     {:<34} {:>9} {:>9} {:>9} {:>7} {:>10} {:>10} {:>6}\n", "", "", "", "",
                                         "", "/el", "/el", ""));
            }
            const std::string who = (v.version == "student" ? std::string("yours") : v.version) + ": " + v.kernel;
            const std::uint64_t wavefronts =
                v.shared_load_wavefronts + v.shared_store_wavefronts + v.shared_atomic_wavefronts;
            const std::uint64_t excess = wavefronts > v.shared_ideal_wavefronts ? wavefronts - v.shared_ideal_wavefronts : 0;
            out += fmt::format("     {:<34} {:>9} {:>9} {:>9} {:>7.2f} {:>10.3f} {:>10.3f} {:>6} {:>8} {:>8}\n",
                               who.substr(0, 34), v.shared_load_requests, v.shared_store_requests + v.shared_atomic_requests,
                               v.global_load_requests, per(v.global_load_sectors, v.global_load_requests),
                               per(excess, v.elements), per(v.excess_warp_requests, v.elements), v.shared_epochs,
                               v.barriers, v.warp_shuffles);
        }
        if (!part.ladder.empty()) out += fmt::format("  {:<2} ladder: {}\n", part.id, part.ladder);
    }
}

void render_checks(std::string& out, const lab_result& r, const palette& p) {
    bool header = false;
    auto line = [&](const std::string& who, const check_result& c) {
        if (!header) {
            out += "\n" + p.bold("Technique checks") + "\n";
            header = true;
        }
        const std::string word = c.status == check_status::passed   ? p.good("passed")
                                 : c.status == check_status::failed ? p.bad("FAILED")
                                 : c.status == check_status::info   ? p.dim("info")
                                                                    : p.warn("skipped");
        out += fmt::format("  {:<2} {:<16} {}  {}\n", who, c.name, word, c.detail);
    };
    for (const auto& c : r.checks) line("", c);
    for (const auto& part : r.parts)
        for (const auto& c : part.checks) line(part.id, c);
}

}  // namespace

std::string build_failure_words(const lab_result& r) {
    const std::string file = r.source.path.empty() ? "your file" : r.source.path;
    if (r.build.kind == "rejected") return file + " was refused by the course's guard";
    if (r.build.kind == "link_error") return file + " does not link with the course's code";
    return file + " does not compile";
}

std::string summary_line(const lab_result& r) {
    const std::string score = points(r.score) + "/" + points(r.max_score);
    if (!r.infrastructure_error.empty()) return fmt::format("{}: not graded ({})", r.lab, r.infrastructure_error);
    // Never the grade of an older build: the file as it is now did not build.
    if (!r.build.kind.empty()) return fmt::format("{}: {} ({}; nothing was graded)", r.lab, score, build_failure_words(r));
    std::string wrong;
    for (const auto& part : r.parts) {
        if (part.correctness.status != correctness_status::passed) {
            wrong += (wrong.empty() ? "" : ", ") + part.id;
        }
    }
    // A failed check costs points (core/scoring.hpp), so the line names it.
    std::string failed;
    for (const auto& c : r.checks)
        if (c.status == check_status::failed) failed += (failed.empty() ? "" : ", ") + c.name;
    for (const auto& part : r.parts)
        for (const auto& c : part.checks)
            if (c.status == check_status::failed) failed += (failed.empty() ? "" : ", ") + part.id + " " + c.name;
    if (!failed.empty()) failed = "failed check: " + failed;
    if (!wrong.empty())
        return fmt::format("{}: {} (not correct: part {}{})", r.lab, score, wrong, failed.empty() ? "" : "; " + failed);
    const std::string verdict = failed.empty() ? "correct" : failed;
    if (r.backend != "gpu")
        return fmt::format("{}: {} ({}; on the CPU emulator: timing needs a GPU)", r.lab, score, verdict);
    std::string perf;
    for (const auto& part : r.parts) {
        const auto& t = part.timing;
        if (t.status != timing_status::measured) continue;
        perf += fmt::format("{}{}{:.2f}x vs naive, target {:.2f}x", perf.empty() ? "" : "; ",
                            r.parts.size() > 1 ? part.id + " " : "", t.speedup, t.target);
    }
    return fmt::format("{}: {} ({}; {})", r.lab, score, verdict, perf.empty() ? "not timed" : perf);
}

std::string render_text(const lab_result& r, bool color) {
    const palette p{color};
    std::string out;
    out += p.bold(fmt::format("{} ", r.lab)) +
           p.dim(!r.build.kind.empty()  ? std::string("[not graded: the file did not build]")
                 : r.backend.empty() ? fmt::format("[seed {}]", r.seed)
                                  : fmt::format("[{}: {}, seed {}]", r.backend == "gpu" ? "GPU" : "CPU emulation",
                                                r.device, r.seed)) +
           "\n";
    if (!r.source.path.empty()) {
        const std::string hash = r.source.sha256.empty() ? "" : ", sha256 " + r.source.sha256.substr(0, 12);
        out += p.dim((r.build.kind.empty() ? "graded: " : "file: ") + r.source.path + hash) + "\n";
    }
    for (const auto& note : r.notes) out += p.warn("note: ") + note + "\n";
    if (!r.infrastructure_error.empty()) {
        out += p.bad("error: ") + r.infrastructure_error + "\n";
    } else if (!r.build.kind.empty()) {
        out += "\n" + p.bold(r.build.kind == "rejected" ? "Build (refused by course_cc_guard)" : "Build") + "\n";
        std::size_t at = 0;
        while (at < r.build.log.size()) {
            const std::size_t end = std::min(r.build.log.find('\n', at), r.build.log.size());
            out += "  " + r.build.log.substr(at, end - at) + "\n";
            at = end + 1;
        }
    } else {
        out += "\n";
        render_correctness(out, r, p);
        render_timing(out, r, p);
        render_counters(out, r, p);
        render_checks(out, r, p);
    }
    const std::string line = summary_line(r);
    out += "\n" + (r.passed ? p.good(line) : p.bad(line)) + "\n";
    return out;
}

}  // namespace course
