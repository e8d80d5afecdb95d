#include "supervisor/worker_choice.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "core/report.hpp"
#include "core/sha256.hpp"
#include "supervisor/known_labs.hpp"
#include "supervisor/phase_runner.hpp"
#include "process/worker_process.hpp"

namespace course {

bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

std::string worker_path(const grade_options& opt, const char* backend) {
    return opt.worker_dir + "/" + opt.lab + "_worker_" + backend;
}

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

namespace {

struct described {
    hello_event hello;
    std::optional<sandbox_event> sandbox;  // the worker reports its sandbox before the hello
    std::string error;      // why there is no hello
};

described describe(const std::string& worker) {
    const worker_run run = run_worker(worker_argv(worker, describe_job()), timeouts(60, 120));
    described out;
    try {
        for (const auto& ev : run.events) {
            if (is_event<sandbox_event>(ev)) out.sandbox = ev.get<sandbox_event>();
            if (is_event<hello_event>(ev)) {
                out.hello = ev.get<hello_event>();
                return out;
            }
            if (is_event<error_event>(ev)) {
                out.error = ev.get<error_event>().message;
                return out;
            }
        }
    } catch (const nlohmann::json::exception& e) {
        out.error = std::string("the worker's answer is not what the grader expects: ") + e.what();
        return out;
    }
    out.error = "the worker " + run.describe_end() + ": " + last_lines(run.output_tail, 5);
    return out;
}

// The graded file and its object: the caller's, else what the build recorded beside the
// worker (<worker>.json, written by cmake/course_labs.cmake).
std::pair<std::string, std::string> student_files(const grade_options& opt, const std::string& worker) {
    std::string source, object;
    if (std::ifstream in(worker + ".json"); in) {
        const auto recorded = nlohmann::json::parse(in, nullptr, false);
        if (recorded.is_object()) {
            source = recorded.value("student_source", "");
            object = recorded.value("student_object", "");
        }
    }
    if (!opt.student_source.empty()) source = opt.student_source;
    if (!opt.student_object.empty()) object = opt.student_object;
    return {source, object};
}

// The --described file's bytes, read once for the grade (read_pinned), or why not.
struct described_file {
    std::optional<std::string> bytes;
    std::string why_not;
};

// The lab as the --described file's bytes say, when they are of this lab and of the backend
// the grade would try; else nullopt, with the reason in `why_not`.
std::optional<described> read_description(const session& s, const described_file& file, const std::string& backend,
                                          std::string& why_not) {
    if (!file.bytes) {
        why_not = file.why_not;
        return std::nullopt;
    }
    const auto doc = nlohmann::json::parse(*file.bytes, nullptr, false);
    try {
        if (!doc.is_object() || !doc.contains("hello")) throw std::runtime_error("it is not a lab's description");
        described out;
        out.hello = doc.at("hello").get<hello_event>();
        if (doc.contains("sandbox")) out.sandbox = doc.at("sandbox").get<sandbox_event>();
        if (out.hello.lab != s.opt.lab) throw std::runtime_error("it describes " + out.hello.lab);
        if (out.hello.backend != backend) throw std::runtime_error("it describes the " + out.hello.backend + " worker");
        // The course's list of the lab's parts, which no file can shorten.
        std::vector<std::string> ids;
        for (const auto& p : out.hello.parts) ids.push_back(p.id);
        const auto lab_ids = part_ids(known_lab(s.opt.lab));
        if (ids != lab_ids) throw std::runtime_error("it lists parts " + join(ids) + ", not the lab's " + join(lab_ids));
        return out;
    } catch (const nlohmann::json::exception& e) {
        why_not = std::string("it is not a lab's description: ") + e.what();
    } catch (const std::exception& e) {
        why_not = e.what();
    }
    return std::nullopt;
}

// What the worker of `backend` tells, or --described instead when it applies
// (lab_result::described says which).
described ask(const session& s, const described_file& file, const std::string& worker, const std::string& backend,
              lab_result& r) {
    if (!s.opt.described.empty()) {
        std::string why_not;
        if (auto found = read_description(s, file, backend, why_not)) {
            r.described = "class";
            s.say("the lab as described for the class, in " + s.opt.described);
            return *found;
        }
        r.described = "asked: " + s.opt.described + ": " + why_not;
        s.say("the lab's description " + s.opt.described + " not read (" + why_not + "): asking the worker");
    }
    return describe(worker);
}

}  // namespace

std::string write_lab_description(const std::string& lab, const std::string& worker, const std::string& out) {
    const described found = describe(worker);
    if (!found.error.empty()) throw std::runtime_error(worker + ": " + found.error);
    if (found.hello.lab != lab) throw std::runtime_error(worker + " is a worker of " + found.hello.lab + ", not " + lab);
    nlohmann::json doc{{"hello", found.hello}};
    if (found.sandbox) doc["sandbox"] = *found.sandbox;
    const std::string text = doc.dump(1) + "\n";
    write_file_atomic(out, text);
    return text;
}

std::string choose_worker(session& s, lab_result& r) {
    const std::string gpu = worker_path(s.opt, "gpu");
    const std::string emulated = worker_path(s.opt, "emulated");
    described found;
    described_file file;
    if (!s.opt.described.empty()) file.bytes = read_pinned(s.opt.described, s.opt.described_sha256, file.why_not);
    std::string why_not_gpu;
    if (s.opt.force_emulate) {
        why_not_gpu = "--emulate";
    } else if (!executable(gpu)) {
        why_not_gpu = "this build has no GPU grader (no CUDA Toolkit when it was configured)";
    } else {
        found = ask(s, file, gpu, "gpu", r);
        if (found.error.empty()) {
            s.worker = gpu;
            s.backend = "gpu";
        } else {
            why_not_gpu = "no usable GPU: " + found.error;
        }
    }
    if (s.worker.empty()) {
        if (!executable(emulated))
            return why_not_gpu + ", and the CPU emulation grader for " + s.opt.lab + " is not built";
        found = ask(s, file, emulated, "emulated", r);
        if (!found.error.empty()) return "the CPU emulation grader failed to start: " + found.error;
        s.worker = emulated;
        s.backend = "emulated";
        r.notes.push_back("Grading on the CPU emulator (" + why_not_gpu +
                          "): correctness, and the technique from its counters; timing needs an NVIDIA GPU.");
    }
    r.backend = s.backend;
    r.device = found.hello.device.name.empty() ? "unknown device" : found.hello.device.name;
    if (found.sandbox) r.notes.push_back(found.sandbox->note.empty() ? "Sandbox: not reported." : found.sandbox->note);
    std::tie(s.student_source, s.student_object) = student_files(s.opt, s.worker);
    describe_source(s.opt, s.student_source, s.worker, r);
    s.parts = found.hello.parts;
    if (s.parts.empty()) return "the worker reported no parts for " + s.opt.lab;
    for (const auto& p : s.parts)
        if (s.pol.problems.count(p.kind) == 0)
            return "part " + p.id + " is a problem of kind \"" + p.kind + "\", which the policy has no \"problems\" block for";
    return "";
}

}  // namespace course
