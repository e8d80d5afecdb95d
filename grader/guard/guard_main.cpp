// course_cc_guard: the compiler launcher of every student file (docs/architecture.md,
// "The guard"). CMake sets it as the CUDA/CXX compiler launcher of the student objects and
// the batch grader prepends it to the same compile command:
//
//   course_cc_guard --lab lab3 --backend gpu --source /abs/labs/lab3_unrolled/kernels.cu
//       --namespace lab3_student --display-name labs/lab3_unrolled/kernels.cu
//       --verdict /abs/build/guard/lab3_student_labs_gpu.json
//       --allow /abs/build/generated/lab_contracts/contracts/lab3.cuh --allow /abs/common/emu/ ... -- nvcc ... -o obj -c wrapper.cu
//
// It checks the file's directives, the files its compile reaches, its own tokens, then
// compiles it under limits showing only the messages about it, then checks the object.
// What it decided it writes to the --verdict file (guard/guard_run.hpp has its words), which
// the build scripts read; its exit code only stops the build: 0 compiled and accepted; 3
// refused (the object is deleted); the compiler's own status when the compile fails (1 when
// a limit stopped it); 2 a usage error or a missing tool. The rules themselves live in
// rules/submission_rules (unit-tested).
#include <CLI/CLI.hpp>

#include <signal.h>

#include <iostream>

#include "guard/guard_run.hpp"

using course::guard::exit_usage;

int main(int argc, char** argv) {
    // Everything after the first `--` is the compile command, untouched.
    std::vector<std::string> own = {argv[0]};
    course::guard::options o;
    int k = 1;
    for (; k < argc && std::string(argv[k]) != "--"; ++k) own.emplace_back(argv[k]);
    for (++k; k < argc; ++k) o.command.emplace_back(argv[k]);

    CLI::App app{"Checks and compiles a student's lab file: course_cc_guard [options] -- <compile command>"};
    app.add_option("--lab", o.lab, "the lab, as labs.json names it")->required();
    app.add_option("--backend", o.backend_name, "gpu or emulated")->required()->check(CLI::IsMember({"gpu", "emulated"}));
    app.add_option("--source", o.source, "the student's kernels.cu")->required();
    app.add_option("--namespace", o.ns, "the namespace LAB_IMPL names, e.g. lab3_student")->required();
    app.add_option("--display-name", o.display, "how messages name the file (default: --source)");
    app.add_option("--verdict", o.verdict_file, "where to write what the guard decided, as JSON")->required();
    app.add_option("--allow", o.allow, "a file the lab file may reach; a trailing / means a folder");
    app.add_option("--system", o.system, "an extra system include folder");
    app.add_option("--toolchain-cache", o.toolchain_cache,
                   "a folder where the toolchain probe's answer is kept for the next compile with the same command");
    app.add_option("--course-root", o.course_root, "paths inside it are shown relative (default: above common/)");
    app.add_option("--cpu-seconds", o.limits.cpu_seconds, "CPU limit of each compiler process")->capture_default_str();
    app.add_option("--memory-mb", o.limits.memory_mb, "address-space limit of each compiler process")
        ->capture_default_str();
    app.add_option("--log-bytes", o.log_bytes, "compiler output kept")->capture_default_str();
    try {
        std::vector<const char*> args;
        for (const auto& a : own) args.push_back(a.c_str());
        app.parse(static_cast<int>(args.size()), args.data());
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return exit_usage;
    }
    if (o.command.empty()) {
        std::cerr << "course_cc_guard: no compile command after --\n";
        return exit_usage;
    }
    if (o.display.empty()) o.display = o.source;
    ::signal(SIGPIPE, SIG_IGN);
    return course::guard::guard_run(std::move(o)).run();
}
