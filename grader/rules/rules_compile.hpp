#pragma once
// 2. Compile commands and dependencies: how the guard derives its own dependency and
// preprocessing passes from the build's command, and which files the compile may reach.
#include <string>
#include <vector>

namespace course::rules {

enum class compiler_family { nvcc, gcc };
compiler_family family_of(const std::string& compiler);

// A compile command split into what the guard's own passes reuse and what they must drop.
struct compile_command {
    std::vector<std::string> args;   // the command without -c, -o X and the dependency flags
    std::string output;              // the object (-o), empty when none
    std::string input;               // the file compiled (the argument after -c), empty when none
};
compile_command split_compile_command(const std::vector<std::string>& command);

// `-M -MF dep_file`: the dependency pass (both nvcc 13 and g++ 12; g++ also gets -MG, so
// that a missing header reaches the real compile, which names it).
std::vector<std::string> dependency_command(const compile_command& cc, compiler_family family,
                                            const std::string& dep_file);
// `-E -o out_file`. nvcc -E preprocesses for the device (the first architecture);
// `host_view` undefines what nvcc sets only there, which gives its host pass.
std::vector<std::string> preprocess_command(const compile_command& cc, compiler_family family,
                                            const std::string& out_file, bool host_view);

// The prerequisites of a make rule (-M output): backslash-newlines joined, `\ ` and `\#`
// unescaped, `$$` turned into `$`.
std::vector<std::string> parse_make_rule(const std::string& text);

// The include folders in `g++ -E -x c++ - -v </dev/null` output.
std::vector<std::string> parse_search_dirs(const std::string& verbose_output);

// What a file reached by the compile may be. All paths are absolute and real (symlinks
// resolved); a folder entry ends with '/'.
struct path_policy {
    std::string source;
    std::string wrapper;
    std::vector<std::string> allowed;       // files, or folders when they end with '/'
    std::vector<std::string> system_roots;  // folders
};
enum class path_kind { source, wrapper, allowed, system, forbidden };
path_kind classify_path(const std::string& path, const path_policy& policy);
bool path_is_under(const std::string& path, const std::string& folder);
// `path` relative to the course root when it is inside, else as it is.
std::string shown_path(const std::string& path, const std::string& course_root);
std::string reaches_message(const std::string& shown);

}  // namespace course::rules
