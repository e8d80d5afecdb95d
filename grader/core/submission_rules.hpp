#pragma once
// The rules a student's lab file must follow before, while and after it is compiled
// (grader/guard/, course_cc_guard). Pure functions on text: the source, a compile command,
// a make rule, preprocessed output, compiler messages, and nm, readelf and objdump output,
// so that the unit tests can feed them literal input. Nothing here runs a process.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace course::rules {

// One reason to refuse a file. `line` is a line of the student's file, 0 when there is none.
struct finding {
    int line = 0;
    std::string message;
};

// ---- 1. Directives of the source text ----

// Each #include must name a relative header in quotes or angle brackets, without `..`;
// only `#pragma unroll [N]`, `nounroll`, `once` and `GCC unroll N` are allowed; no
// `_Pragma`, `#line`, `#include_next`, `#import`, and no `#` outside a directive (a
// stray one could forge a line marker in the preprocessed output). Comments, line
// splices, raw strings and the `%:` digraph are handled as the preprocessor does.
std::vector<finding> scan_directives(const std::string& source);

// ---- 2. Compile commands and dependencies ----

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

// ---- 3. The student's own lines in preprocessed output ----

// Follows the line markers of `-E` output and, in the lines `is_source` attributes to the
// student's file, refuses inline assembly, `exit`, computed goto, attributes that place or
// alias code (section, alias, constructor, ...), pragmas outside the allowed ones, and
// namespaces other than `ns`, an anonymous one, or one nested inside those.
std::vector<finding> scan_preprocessed(const std::string& text, const std::function<bool(const std::string&)>& is_source,
                                       const std::string& ns);

// ---- 4. Compiler messages ----

// Keeps the messages located in the student's file (gcc `PATH:LINE:COL: ...`,
// `PATH: In function ...` and nvcc `PATH(LINE): ...`, with the lines that follow each),
// with `display` in place of every spelling of its path; counts the other lines.
struct diagnostics {
    std::vector<std::string> kept;
    std::size_t hidden_lines = 0;
};
diagnostics filter_diagnostics(const std::string& output, const std::function<bool(const std::string&)>& is_source,
                               const std::vector<std::string>& spellings, const std::string& display);

enum class limit_hit { none, cpu, memory, file_size, wall_clock };
// Which resource limit stopped a compiler: from the signal that ended it, the guard's own
// timeout, or what the compiler driver says about a program it started (lines about the
// student's file do not count: a student can write anything in an #error).
limit_hit detect_limit(const std::string& output, int term_signal, bool timed_out,
                       const std::function<bool(const std::string&)>& is_source);

// ---- 5. The object ----

enum class backend { gpu, emu };

// The text of `nm -P`, `readelf -SW`, `readelf -rW`, `readelf -sW` and
// `objdump -dr --no-show-raw-insn` on one object.
struct object_dump {
    std::string nm;
    std::string sections;
    std::string relocations;
    std::string symbols;
    std::string disassembly;
};

// Defined symbols outside the namespace, calls of anything but the backend's allowlist,
// constructors and initializers, and system-call instructions.
std::vector<finding> check_object(const object_dump& dump, backend b, const std::string& ns);

// The first component of a mangled C++ name's scope: "lab3_student", "std", "" for the
// global namespace (or a C name), "?" when it cannot tell. `global_name` is set to the
// unqualified name of a global entity ("__ldg", "nvtxMarkA_impl_init_v3").
std::string symbol_scope(const std::string& mangled, std::string* global_name = nullptr);
// abi::__cxa_demangle, or the name itself when it is not a C++ name.
std::string demangle(const std::string& mangled);

}  // namespace course::rules
