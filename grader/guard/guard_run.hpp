#pragma once
// One run of course_cc_guard over one student file, phase by phase: the file's directives,
// the files its compile reaches (guard_dependencies.cpp), its own tokens, the compile
// under limits, the object (guard_run.cpp). Each phase returns 0 to go on, or the exit
// code of the guard.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "rules/submission_rules.hpp"
#include "guard/guard_system.hpp"

namespace course::guard {

// The exit codes only stop the build; what the guard decided is in its verdict file.
inline constexpr int exit_refused = 3;
inline constexpr int exit_usage = 2;
// The verdict file's words (--verdict FILE: {"verdict": WORD, "source": ..., "exit_code": N}),
// which grader/student/course_build.py and grader/batch/build_recipe.py read through
// grader/guard/verdict.py, where the same words are written.
inline constexpr const char* verdict_compiled = "compiled";            // accepted, the object is there
inline constexpr const char* verdict_refused = "refused";              // the file breaks a rule: no object
inline constexpr const char* verdict_compile_error = "compile_error";  // the compiler failed or hit a limit
inline constexpr const char* verdict_error = "error";                  // the guard could not do its work
// Bytes kept of the output of a pass that is never shown.
inline constexpr std::size_t hidden_bytes = 64u << 10;

struct options {
    std::string lab, backend_name, source, ns, display;
    std::vector<std::string> allow, system;
    std::string course_root;
    std::string verdict_file;  // where the verdict goes
    std::string toolchain_cache;  // where the toolchain probe's answers are kept (toolchain_cache.hpp); "" none
    bounds limits;
    std::size_t log_bytes = 65536;
    std::vector<std::string> command;  // after --
};

class guard_run {
public:
    explicit guard_run(options o) : o_(std::move(o)) {}
    int run();

private:
    int run_phases();
    bool write_verdict(int code);
    int usage(const std::string& why);
    bool setup_fails(const std::string& why);
    bool setup();

    // What the student sees.
    std::string excerpt(int line) const;
    int refuse(const std::vector<rules::finding>& found);
    int refuse(const std::string& message);
    bool is_source(const std::string& file);

    // The phases, in order.
    int check_source();
    int check_dependencies(const std::string& scratch);
    int check_tokens(const std::string& scratch);
    int compile();
    int check_object_file();
    int edit_emulated_object(const std::string& sections, const std::string& nm);

    // For check_dependencies: the folders whose headers count as the system's.
    // `fresh_probe`: probe the toolchain even where its answer is kept.
    std::vector<std::string> system_roots(const std::string& scratch, bool fresh_probe);
    void add_toolchain_roots(std::vector<std::string>& roots, const std::string& scratch, const std::string& host,
                             bool fresh_probe);
    std::string course_root(const std::vector<std::string>& allowed) const;
    bool too_wide(const std::vector<std::string>& roots) const;

    bool tool_output(const std::vector<std::string>& argv, std::string& out);

    // "ran out of its 300 s CPU limit", for "compiling kernels.cu ...".
    std::string limit_words(rules::limit_hit hit) const;
    // The limit that stopped a pass whose messages are never shown (none of its lines is
    // taken for the student's).
    static rules::limit_hit hidden_pass_limit(const worker_run& r);

    options o_;
    rules::backend backend_ = rules::backend::gpu;
    rules::compiler_family family_ = rules::compiler_family::gcc;
    std::map<std::string, std::string> tools_;
    std::string source_real_;
    std::string source_text_;
    rules::compile_command cc_;
    std::vector<std::string> spellings_;
    std::map<std::string, bool> source_files_;
    bool toolchain_cached_ = false;  // the toolchain's folders came from --toolchain-cache
    bool tokens_unchecked_ = false;  // a preprocessor pass failed: the compile must fail too
    const char* decision_ = verdict_error;
};

}  // namespace course::guard
