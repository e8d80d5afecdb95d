#include "core/result.hpp"

#include <cmath>
#include <filesystem>

namespace course {

std::string to_string(correctness_status s) {
    switch (s) {
    case correctness_status::passed: return "passed";
    case correctness_status::failed: return "failed";
    case correctness_status::crashed: return "crashed";
    case correctness_status::timed_out: return "timed_out";
    case correctness_status::not_run: return "not_run";
    }
    return "unknown";
}

std::string to_string(timing_status s) {
    switch (s) {
    case timing_status::measured: return "measured";
    case timing_status::not_measured: return "not_measured";
    case timing_status::failed: return "failed";
    }
    return "unknown";
}

std::string to_string(check_status s) {
    switch (s) {
    case check_status::passed: return "passed";
    case check_status::failed: return "failed";
    case check_status::skipped: return "skipped";
    case check_status::info: return "info";
    }
    return "unknown";
}

namespace {
// JSON has no NaN; a kernel's NaN output is reported as null with the text in "detail".
nlohmann::json number_or_null(double x) {
    return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}
}  // namespace

std::string shown_source_path(const std::string& file, const std::string& course_root) {
    namespace fs = std::filesystem;
    if (file.empty() || course_root.empty()) return file;
    const fs::path f = fs::path(file).lexically_normal();
    const fs::path root = fs::path(course_root).lexically_normal();
    if (!f.is_absolute() || !root.is_absolute()) return file;
    const fs::path rel = f.lexically_relative(root);
    // "../x" is a sibling of the root (course2/ next to course/), "." the root itself.
    if (rel.empty() || rel == "." || *rel.begin() == "..") return file;
    return rel.string();
}

namespace {
std::vector<std::string> components(const std::string& path) {
    std::vector<std::string> out;
    for (const auto& c : std::filesystem::path(path)) out.push_back(c.string());
    return out;
}
}  // namespace

bool is_student_lab_file(const std::string& shown) {
    const auto c = components(shown);
    return c.size() == 3 && c[0] == "labs" && !c[1].empty() && c[2] == "kernels.cu";
}

std::string graded_source_note(const std::string& shown) {
    if (shown.empty() || is_student_lab_file(shown)) return "";
    const auto c = components(shown);
    const std::string folder = c.size() >= 2 ? c[c.size() - 2] : "";
    if (folder.empty()) return "graded " + shown + ", not a file of labs/";
    const std::string lab = folder.substr(0, folder.find('_'));
    const std::string own = "labs/" + folder + "/kernels.cu";
    const std::string rebuild = "; `make " + lab + "` builds yours again";
    if (c.size() == 3 && c[0] == "solutions")
        return "graded " + shown + ", the reference answer, not " + own +
               " (this build was made with LAB_SOURCE=solutions" + rebuild + ")";
    return "graded " + shown + ", not " + own + " (this build was made with LAB_SOURCE pointing there" + rebuild + ")";
}

void to_json(nlohmann::json& j, const case_record& r) {
    j = {{"part", r.part},           {"input", r.input},         {"size", r.size},
         {"n", r.n},                 {"ok", r.ok},               {"fault", r.fault},
         {"timed_out", r.timed_out},
         {"untouched", r.untouched}, {"guard_hit", r.guard_hit}, {"expected", number_or_null(r.expected)},
         {"got", number_or_null(r.got)}, {"tolerance", number_or_null(r.tolerance)}, {"detail", r.detail}};
}

void from_json(const nlohmann::json& j, case_record& r) {
    auto num = [&](const char* key) {
        return j.contains(key) && j[key].is_number() ? j[key].get<double>() : std::nan("");
    };
    r.part = j.value("part", "");
    r.input = j.value("input", "");
    r.size = j.value("size", "");
    r.n = j.value("n", std::uint64_t{0});
    r.ok = j.value("ok", false);
    r.fault = j.value("fault", false);
    r.timed_out = j.value("timed_out", false);
    r.untouched = j.value("untouched", false);
    r.guard_hit = j.value("guard_hit", false);
    r.expected = num("expected");
    r.got = num("got");
    r.tolerance = num("tolerance");
    r.detail = j.value("detail", "");
}

void to_json(nlohmann::json& j, const correctness_result& r) {
    j = {{"status", to_string(r.status)}, {"cases", r.cases},  {"failed", r.failed}, {"faults", r.faults},
         {"failures", r.failures},        {"hint", r.hint},    {"message", r.message},
         {"worst_error_ratio", r.worst_error_ratio},
         {"warp_shuffles", r.warp_shuffles ? nlohmann::json(*r.warp_shuffles) : nlohmann::json(nullptr)}};
}

void to_json(nlohmann::json& j, const kernel_time& r) {
    j = {{"role", r.role}, {"kernel", r.kernel}, {"median_ms", r.median_ms},
         {"gbps", r.gbps}, {"pct_of_copy", r.pct_of_copy}};
}

void to_json(nlohmann::json& j, const timing_result& r) {
    j = {{"status", to_string(r.status)},
         {"reason", r.reason},
         {"problem", r.problem},
         {"kernels", r.kernels},
         {"speedup", r.speedup},
         {"speedup_ci", {r.speedup_lo, r.speedup_hi}},
         {"reference_speedup", r.reference_speedup},
         {"target", r.target},
         {"credit", r.credit},
         {"verdict", r.status == timing_status::measured ? to_string(r.verdict) : "none"},
         {"rounds", r.rounds},
         {"reference_cv", r.reference_cv},
         {"implausible", r.implausible},
         {"copy_gbps", r.copy_gbps},
         {"peak_gbps", r.peak_gbps},
         {"recheck", r.recheck},
         {"worker", r.worker}};
}

void to_json(nlohmann::json& j, const check_result& r) {
    j = {{"name", r.name}, {"status", to_string(r.status)}, {"detail", r.detail}};
}

void to_json(nlohmann::json& j, const part_result& r) {
    j = {{"id", r.id},
         {"title", r.title},
         {"kernel", r.kernel},
         {"correctness", r.correctness},
         {"timing", r.timing},
         {"checks", r.checks},
         {"correctness_points", r.correctness_points},
         {"performance_points", r.performance_points},
         {"score", r.score()},
         {"correctness_max", r.correctness_max},
         {"performance_max", r.performance_max},
         {"max_points", r.max_points()},
         {"penalty", to_string(r.penalty)},
         {"penalty_reason", r.penalty_reason}};
    if (!r.counters.empty() || !r.counters_error.empty())
        j["counters"] = {{"problems", r.counters_problems},
                         {"versions", r.counters},
                         {"hazards", r.hazards},
                         {"error", r.counters_error}};
    if (!r.ladder.empty()) j["ladder"] = r.ladder;
}

void to_json(nlohmann::json& j, const lab_result& r) {
    j = {{"lab", r.lab},
         {"source", {{"path", r.source.path}, {"sha256", r.source.sha256}}},
         {"build", r.build.kind.empty() ? nlohmann::json(nullptr)
                                        : nlohmann::json{{"kind", r.build.kind}, {"log", r.build.log}}},
         {"backend", r.backend},
         {"device", r.device},
         {"seed", r.seed},
         {"started_at", r.started_at},
         {"parts", r.parts},
         {"checks", r.checks},
         {"notes", r.notes},
         {"infrastructure_error", r.infrastructure_error},
         {"score", r.score},
         {"max_score", r.max_score},
         {"passed", r.passed},
         {"exit_code", r.exit_code},
         {"summary", r.summary},
         {"outcome", r.outcome},
         {"seconds", r.seconds},
         {"reference_counters", r.reference_counters},
         {"described", r.described}};
}

}  // namespace course
