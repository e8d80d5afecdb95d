// The grader: `grader lab3 [options]`. Runs the lab's workers, scores the result and
// writes the reports. Exit codes: 0 all passed, 1 something failed, 2 usage or
// infrastructure problem (docs/grading.md).
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "core/grading_plan.hpp"
#include "core/policy.hpp"
#include "core/report.hpp"
#include "core/sha256.hpp"
#include "supervisor/grade_lab.hpp"
#include "supervisor/known_labs.hpp"
#include "supervisor/reference_counters.hpp"
#include "supervisor/worker_choice.hpp"

namespace {

std::string self_dir() {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string(".") : exe.parent_path().string();
}

bool want_color() {
    const char* no_color = std::getenv("NO_COLOR");
    return ::isatty(STDOUT_FILENO) && (no_color == nullptr || *no_color == '\0');
}

struct outputs {
    std::string json, gradescope, junit, text, benchmark;
};

// ./grade's report of a student file that did not build: {"kind", "log", "source"}.
course::build_failure read_build_failure(const std::string& path, std::string& source) {
    std::ifstream in(path);
    const auto j = nlohmann::json::parse(in, nullptr, false);
    if (!in || j.is_discarded() || !j.is_object()) throw std::runtime_error(path + " is not a JSON object");
    course::build_failure f{j.value("kind", ""), j.value("log", "")};
    if (f.kind != "compile_error" && f.kind != "rejected" && f.kind != "link_error")
        throw std::runtime_error(path + ": \"kind\" must be compile_error, rejected or link_error, not '" + f.kind + "'");
    source = j.value("source", "");
    return f;
}

}  // namespace

int main(int argc, char** argv) {
    // `grader --check-policy FILE`: whether an instructor's policy file is valid, before
    // anything is built or graded with it (./grade, ./grade batch, make gradescope).
    if (argc == 3 && std::string(argv[1]) == "--check-policy") {
        try {
            (void)course::load_policy(argv[2]);
        } catch (const std::exception& e) {
            std::cerr << "grader: " << e.what() << "\n";
            return 2;
        }
        std::cout << "policy " << argv[2] << ": valid\n";
        return 0;
    }
    // `grader --describe-grading [FILE]`: what every lab's grade checks on each backend and
    // what a failure costs, as JSON, under the defaults or FILE merged over them
    // (scripts/cite_grading.py checks the handouts' statements against it).
    if ((argc == 2 || argc == 3) && std::string(argv[1]) == "--describe-grading") {
        try {
            std::vector<std::pair<std::string, std::vector<std::string>>> labs;
            for (const auto& l : course::known_labs()) labs.emplace_back(l.name, course::part_ids(l));
            std::cout << course::grading_plan(course::load_policy(argc == 3 ? argv[2] : ""), labs).dump(1) << "\n";
        } catch (const std::exception& e) {
            std::cerr << "grader: " << e.what() << "\n";
            return 2;
        }
        return 0;
    }
    // `grader --count-references LAB WORKER OUT [POLICY]`: a class's reference counters
    // (supervisor/reference_counters.hpp), counted once by WORKER, the lab's emulated
    // template worker, for every grade of a batch to read (--reference-counters OUT).
    if ((argc == 5 || argc == 6) && std::string(argv[1]) == "--count-references") {
        try {
            (void)course::known_lab(argv[2]);  // throws for an unknown lab, naming the labs
            const course::policy pol = course::load_policy(argc == 6 ? argv[5] : "");
            const auto counted = course::count_reference_counters(argv[2], pol, argv[3]);
            const std::string text = nlohmann::json(counted).dump() + "\n";
            course::write_file_atomic(argv[4], text);
            // The SHA-256 of the bytes written, the one line on stdout: the batch pins the file
            // by it (--reference-counters-sha256) without reading back what may have changed.
            std::cout << course::sha256_hex(text) << "\n";
        } catch (const std::exception& e) {
            std::cerr << "grader: --count-references: " << e.what() << "\n";
            return 2;
        }
        return 0;
    }
    // `grader --describe-lab LAB WORKER OUT`: the lab as WORKER, the lab's template worker,
    // describes it (worker_choice.hpp), for every grade of a batch to read (--described OUT).
    if (argc == 5 && std::string(argv[1]) == "--describe-lab") {
        try {
            (void)course::known_lab(argv[2]);  // throws for an unknown lab, naming the labs
            std::cout << course::sha256_hex(course::write_lab_description(argv[2], argv[3], argv[4])) << "\n";
        } catch (const std::exception& e) {
            std::cerr << "grader: --describe-lab: " << e.what() << "\n";
            return 2;
        }
        return 0;
    }
    CLI::App app{"Grades one lab: correctness on every backend, speed against the naive baseline on a GPU."};
    std::string lab, policy_file, worker_dir = self_dir();
    bool emulate = false, quiet = false, no_color = false, sanitize = false, profile = false, show_output = false;
    std::uint64_t seed = 0;
    outputs out;
    std::string course_root, progress_dir, build_failure_file, opt_student_source, opt_student_object, opt_gpu_lock,
        opt_reference_counters, opt_described, opt_reference_counters_sha256, opt_described_sha256;
    app.add_option("lab", lab, "The lab to grade: " + course::known_labs_text())->required();
    app.add_flag("--emulate", emulate, "Grade correctness on the CPU emulator even if a GPU is present");
    app.add_option("--policy", policy_file, "Policy file merged over the defaults")->check(CLI::ExistingFile);
    auto* seed_opt = app.add_option("--seed", seed, "Seed for the random inputs (printed in every report)");
    app.add_option("--json", out.json, "Write the whole result as JSON");
    app.add_option("--gradescope", out.gradescope, "Write Gradescope's results.json");
    app.add_option("--junit", out.junit, "Write JUnit XML");
    app.add_option("--text", out.text, "Write the human report (without colours)");
    app.add_option("--benchmark-out", out.benchmark, "Write the Google Benchmark JSON of the timing runs");
    app.add_flag("--sanitize", sanitize, "Also run compute-sanitizer memcheck and racecheck on your kernels (GPU)");
    app.add_flag("--profile", profile, "Report shared-memory wavefronts per request from Nsight Compute (GPU)");
    app.add_option("--worker-dir", worker_dir, "Folder of the lab workers (default: next to this program)");
    app.add_option("--course-root", course_root, "The course folder: reports show the graded file relative to it")
        ->check(CLI::ExistingDirectory);
    app.add_option("--progress-dir", progress_dir,
                   "Save the result as DIR/<lab>.json when the graded file is the course's labs/ file");
    app.add_option("--build-failure", build_failure_file,
                   "Grade nothing: the student's file did not build, as this JSON file says (./grade writes it)")
        ->check(CLI::ExistingFile);
    app.add_option("--student-source", opt_student_source,
                   "The graded lab file (default: as the build recorded it beside the worker)");
    app.add_option("--student-object", opt_student_object,
                   "The object compiled from it, for the technique checks (default: as the build recorded it)");
    app.add_option("--gpu-lock", opt_gpu_lock,
                   "A lock file that graders sharing this GPU all name: timing waits until it has the GPU alone");
    auto* counters_opt = app.add_option("--reference-counters", opt_reference_counters,
                   "A class's counters of the references (grader --count-references): read, not counted here");
    // A pin that could be left empty or mistyped would pin nothing: 64 hex digits or no grade,
    // lower-cased as sha256_hex writes them (a transform: a check would lower-case a copy).
    const auto sha256_digits = CLI::Validator(
        [](std::string& hex) {
            std::transform(hex.begin(), hex.end(), hex.begin(), [](unsigned char c) { return std::tolower(c); });
            const bool ok = hex.size() == 64 && hex.find_first_not_of("0123456789abcdef") == std::string::npos;
            return ok ? std::string() : std::string("not a SHA-256 (64 hex digits): '") + hex + "'";
        },
        "SHA256");
    auto* counters_sha_opt = app.add_option("--reference-counters-sha256", opt_reference_counters_sha256,
                   "The SHA-256 of the --reference-counters file's bytes: a file that differs is not read")
        ->transform(sha256_digits)
        ->needs(counters_opt);
    counters_opt->needs(counters_sha_opt);
    auto* described_opt = app.add_option("--described", opt_described,
                   "The lab as its template worker described it for a class (grader --describe-lab): read, not asked here");
    auto* described_sha_opt = app.add_option("--described-sha256", opt_described_sha256,
                   "The SHA-256 of the --described file's bytes: a file that differs is not read")
        ->transform(sha256_digits)
        ->needs(described_opt);
    described_opt->needs(described_sha_opt);
    app.add_flag("--show-output", show_output,
                 "Show what your kernels print (printf) in the correctness runs: the first 200 lines of each part");
    app.add_flag("--quiet", quiet, "No progress lines on stderr");
    app.add_flag("--no-color", no_color, "No colours (NO_COLOR in the environment does the same)");
    // ./grade asks before it rebuilds, so that a mistyped option costs no build.
    bool options_only = false;
    app.add_flag("--check-options", options_only, "Check the options and the output paths, grade nothing")
        ->group("");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }

    if (!course::is_known_lab(lab)) {
        std::cerr << "grader: unknown lab '" << lab << "'; the labs are " << course::known_labs_text() << "\n";
        return 2;
    }
    for (const std::string* path : {&out.json, &out.gradescope, &out.junit, &out.text, &out.benchmark}) {
        if (path->empty()) continue;
        if (const std::string problem = course::output_path_problem(*path); !problem.empty()) {
            std::cerr << "grader: cannot write " << *path << ": " << problem << "\n";
            return 2;
        }
    }

    course::policy pol;
    try {
        pol = course::load_policy(policy_file);
    } catch (const std::exception& e) {
        std::cerr << "grader: " << e.what() << "\n";
        return 2;
    }
    if (options_only) return 0;

    course::grade_options opt;
    opt.lab = lab;
    opt.worker_dir = worker_dir;
    opt.force_emulate = emulate;
    opt.student_source = opt_student_source;
    opt.student_object = opt_student_object;
    opt.gpu_lock = opt_gpu_lock;
    opt.reference_counters = opt_reference_counters;
    opt.described = opt_described;
    opt.reference_counters_sha256 = opt_reference_counters_sha256;
    opt.described_sha256 = opt_described_sha256;
    if (*seed_opt) opt.seed = seed;
    opt.benchmark_out = out.benchmark;
    opt.sanitize = sanitize;
    opt.profile = profile;
    if (!quiet) opt.progress = [](const std::string& line) { std::cerr << "[grade] " << line << "\n"; };
    if (show_output) {
        // Before the report, marked as the kernels' own: it is not the grader's.
        opt.kernel_output = [](const std::string& part, const std::string& output) {
            if (output.empty()) {
                std::cout << "--- part " << part << ": your kernels printed nothing ---\n\n" << std::flush;
                return;
            }
            std::cout << "--- part " << part << ": what your kernels printed (printf; the first 200 lines at most) ---\n"
                      << output << "--- end of part " << part << "'s kernel output ---\n\n" << std::flush;
        };
    }
    if (!course_root.empty()) opt.course_root = std::filesystem::absolute(course_root).lexically_normal().string();

    course::lab_result result;
    if (build_failure_file.empty()) {
        result = course::grade_lab(opt, pol);
    } else {
        try {
            std::string source;
            const course::build_failure failure = read_build_failure(build_failure_file, source);
            result = course::failed_build_result(opt, pol, failure, source);
        } catch (const std::exception& e) {
            std::cerr << "grader: --build-failure: " << e.what() << "\n";
            return 2;
        }
    }
    std::cout << course::render_text(result, want_color() && !no_color) << std::flush;

    int exit_code = result.exit_code;
    auto write = [&](const std::string& path, const std::string& content) {
        if (path.empty()) return;
        try {
            course::write_file_atomic(path, content);
        } catch (const std::exception& e) {
            std::cerr << "grader: " << e.what() << "\n";
            exit_code = 2;
        }
    };
    write(out.json, nlohmann::json(result).dump(2) + "\n");
    write(out.gradescope, course::to_gradescope(result).dump(2) + "\n");
    write(out.junit, course::to_junit_xml(result));
    write(out.text, course::render_text(result, false));
    // Only a grade of the student's own file is their progress; an infrastructure error is no grade.
    if (!progress_dir.empty() && result.exit_code != 2 && !opt.course_root.empty() &&
        course::is_student_lab_file(result.source.path)) {
        if (const std::string problem = course::save_progress(result, progress_dir); !problem.empty())
            std::cerr << "grader: warning: progress not saved: " << problem << "\n";
    }
    return exit_code;
}
