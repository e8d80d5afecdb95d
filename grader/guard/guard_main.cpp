// course_cc_guard: the compiler launcher of every student file (docs/architecture.md,
// "The guard"). CMake sets it as the CUDA/CXX compiler launcher of the student objects and
// the batch grader prepends it to the same compile command:
//
//   course_cc_guard --lab lab3 --backend gpu --source /abs/labs/lab3_unrolled/kernels.cu
//       --namespace lab3_student --display-name labs/lab3_unrolled/kernels.cu
//       --allow /abs/common/contracts/lab3.cuh --allow /abs/common/emu/ ... -- nvcc ... -o obj -c wrapper.cu
//
// It checks the file's directives, the files its compile reaches, its own tokens, then
// compiles it under limits showing only the messages about it, then checks the object.
// Exit codes: 0 compiled and accepted; 1 refused (the object is deleted); the compiler's
// own status when the compile fails (1 when a limit stopped it); 2 a usage error or a
// missing tool. The rules themselves live in core/submission_rules (unit-tested).
#include <CLI/CLI.hpp>

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "core/submission_rules.hpp"
#include "guard/guard_system.hpp"

namespace fs = std::filesystem;
using namespace course;
using namespace course::rules;

namespace {

constexpr int exit_refused = 3;  // grader/batch/build_recipe.py tells a refusal from a compile error by it
constexpr int exit_usage = 2;
constexpr std::size_t max_source_bytes = 1u << 20;
constexpr std::size_t max_tool_output = 256u << 20;
constexpr std::size_t hidden_bytes = 64u << 10;  // output of a pass that is never shown
const auto never = [](const std::string&) { return false; };

struct options {
    std::string lab, backend_name, source, ns, display;
    std::vector<std::string> allow, system;
    std::string course_root;
    guard::bounds limits;
    std::size_t log_bytes = 65536;
    std::vector<std::string> command;  // after --
};

std::string limit_words(limit_hit hit, const guard::bounds& b) {
    switch (hit) {
    case limit_hit::cpu: return "ran out of its " + std::to_string(b.cpu_seconds) + " s CPU limit";
    case limit_hit::memory: return "hit its " + std::to_string(b.memory_mb) + " MiB memory limit";
    case limit_hit::file_size:
        return "hit its " + std::to_string(guard::bounds::file_size_bytes >> 20) + " MiB file-size limit";
    case limit_hit::wall_clock:
        return "ran past its " + std::to_string(static_cast<long>(b.wall_seconds())) + " s wall-clock limit";
    case limit_hit::none: break;
    }
    return "";
}

class guard_run {
public:
    explicit guard_run(options o) : o_(std::move(o)) {}

    int run() {
        if (!setup()) return exit_usage;
        std::error_code ignored;
        fs::remove(cc_.output, ignored);  // a refused or failed file leaves no object, not even an old one
        if (int code = check_source(); code != 0) return code;
        guard::scratch_dir scratch;
        if (scratch.path().empty()) return usage("cannot make a scratch folder");
        if (int code = check_dependencies(scratch.path()); code != 0) return code;
        if (int code = check_tokens(scratch.path()); code != 0) return code;
        if (int code = compile(); code != 0) return code;
        return check_object_file();
    }

private:
    int usage(const std::string& why) {
        std::cerr << "course_cc_guard: " << why << "\n";
        return exit_usage;
    }
    bool setup_fails(const std::string& why) {
        usage(why);
        return false;
    }

    bool setup() {
        backend_ = o_.backend_name == "gpu" ? backend::gpu : backend::emulated;
        const std::string compiler = guard::find_program(o_.command[0]);
        if (compiler.empty()) return setup_fails("cannot find the compiler " + o_.command[0]);
        o_.command[0] = compiler;
        family_ = family_of(compiler);
        for (const char* tool : {"nm", "readelf", "objdump"}) {
            tools_[tool] = guard::find_program(tool);
            if (tools_[tool].empty()) return setup_fails(std::string("cannot find ") + tool + " (binutils)");
        }
        source_real_ = guard::real_path(o_.source);
        if (source_real_.empty()) return setup_fails("cannot find the source " + o_.source);
        cc_ = split_compile_command(o_.command);
        if (cc_.input.empty()) return setup_fails("the compile command has no `-c FILE`");
        if (cc_.output.empty()) return setup_fails("the compile command has no `-o OBJECT`");
        spellings_ = {o_.source, source_real_};
        return true;
    }

    // ---- what the student sees ----

    std::string excerpt(int line) const {
        std::istringstream in(source_text_);
        std::string s;
        for (int k = 1; k <= line && std::getline(in, s); ++k) {
        }
        const auto start = s.find_first_not_of(" \t");
        s = start == std::string::npos ? "" : s.substr(start);
        if (s.size() > 160) s = s.substr(0, 157) + "...";
        return s;
    }

    int refuse(const std::vector<finding>& found) {
        constexpr std::size_t shown = 12;
        for (std::size_t k = 0; k < found.size() && k < shown; ++k) {
            const finding& f = found[k];
            if (f.line > 0) {
                std::cerr << o_.display << ":" << f.line << ": error: " << f.message << "\n";
                const std::string text = excerpt(f.line);
                if (!text.empty()) std::cerr << "    " << text << "\n";
            } else {
                std::cerr << o_.display << ": error: " << f.message << "\n";
            }
        }
        if (found.size() > shown) std::cerr << o_.display << ": ... and " << found.size() - shown << " more\n";
        std::cerr << "course_cc_guard: " << o_.display << " was not compiled (docs/grading.md says what a lab file may hold)\n";
        std::error_code ignored;
        fs::remove(cc_.output, ignored);
        return exit_refused;
    }

    int refuse(const std::string& message) { return refuse(std::vector<finding>{{0, message}}); }

    bool is_source(const std::string& file) {
        const auto known = source_files_.find(file);
        if (known != source_files_.end()) return known->second;
        const bool yes = guard::real_path(file) == source_real_;
        source_files_[file] = yes;
        if (yes && std::find(spellings_.begin(), spellings_.end(), file) == spellings_.end()) spellings_.push_back(file);
        return yes;
    }

    // ---- 1. directives ----

    int check_source() {
        // A link would make another file (another lab's solution, /etc/passwd) the
        // "student's file", whose messages the compile shows.
        std::error_code ec;
        const auto status = fs::symlink_status(o_.source, ec);
        if (fs::is_symlink(status) || !fs::is_regular_file(status))
            return refuse("kernels.cu must be a plain file, not a link or a device");
        if (!guard::read_file(o_.source, source_text_, max_source_bytes)) {
            if (source_text_.size() > max_source_bytes) return refuse("kernels.cu is larger than 1 MiB");
            return usage("cannot read " + o_.source);
        }
        const auto found = scan_directives(source_text_);
        return found.empty() ? 0 : refuse(found);
    }

    // ---- 2. dependencies ----

    std::vector<std::string> system_roots(const std::string& scratch) {
        std::vector<std::string> roots = {"/usr/include", "/usr/lib/gcc"};
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator("/usr/local", ec)) {
            if (entry.path().filename().string().rfind("cuda", 0) == 0) roots.push_back(entry.path().string());
        }
        std::string host = o_.command[0];
        if (family_ == compiler_family::nvcc) {
            host = "gcc";  // what nvcc runs to preprocess, unless told otherwise
            for (std::size_t i = 1; i + 1 < cc_.args.size(); ++i) {
                if (cc_.args[i] == "-ccbin" || cc_.args[i] == "--compiler-bindir") host = cc_.args[i + 1];
            }
            for (const auto& a : cc_.args) {
                if (a.rfind("-ccbin=", 0) == 0) host = a.substr(7);
                if (a.rfind("--compiler-bindir=", 0) == 0) host = a.substr(18);
            }
            if (fs::is_directory(host, ec)) host += "/gcc";
            const fs::path bin = fs::path(guard::real_path(o_.command[0])).parent_path();
            roots.push_back((bin / ".." / "include").string());
            for (const auto& entry : fs::directory_iterator(bin / ".." / "targets", ec))
                roots.push_back((entry.path() / "include").string());
        }
        host = guard::find_program(host);
        if (!host.empty()) {
            const worker_run r = guard::run_bounded({host, "-E", "-x", "c++", "-", "-v"}, o_.limits, 1u << 20);
            for (const auto& dir : parse_search_dirs(r.output_tail)) roots.push_back(dir);
        }
        for (const auto& s : o_.system) roots.push_back(s);
        add_toolchain_roots(roots, scratch);
        std::vector<std::string> real;
        for (const auto& r : roots) {
            const std::string p = guard::real_path(r);
            if (!p.empty()) real.push_back(p);
        }
        return real;
    }

    // The folders of the headers that the same compile command reaches for standard and
    // CUDA includes alone: whatever host compiler nvcc was set up with (a GCC under /opt,
    // say), its built-in headers count as the toolchain's.
    void add_toolchain_roots(std::vector<std::string>& roots, const std::string& scratch) {
        if (cc_.input.empty()) return;
        const std::string ext = family_ == compiler_family::nvcc ? ".cu" : ".cpp";
        const std::string probe = scratch + "/toolchain_probe" + ext, deps = scratch + "/toolchain_probe.d";
        std::string text =
            "#include <cstddef>\n#include <cstdint>\n#include <climits>\n#include <cfloat>\n#include <cmath>\n"
            "#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <algorithm>\n#include <limits>\n"
            "#include <type_traits>\n#include <utility>\n#include <stdarg.h>\n";
        if (family_ == compiler_family::nvcc) text += "#include <cuda_runtime.h>\n#include <cooperative_groups.h>\n";
        {
            std::ofstream out(probe);
            out << text;
            if (!out) return;
        }
        compile_command probe_cc = cc_;
        for (auto& a : probe_cc.args)
            if (a == cc_.input) a = probe;
        const worker_run r = guard::run_bounded(dependency_command(probe_cc, family_, deps), o_.limits, hidden_bytes);
        std::string rule;
        if (!r.exited_normally() || r.exit_code != 0 || !guard::read_file(deps, rule, 64u << 20)) return;
        for (const auto& dep : parse_make_rule(rule)) {
            const std::string real = guard::real_path(dep);
            if (!real.empty() && real != guard::real_path(probe)) roots.push_back(fs::path(real).parent_path().string());
        }
    }

    std::string course_root(const std::vector<std::string>& allowed) const {
        if (!o_.course_root.empty()) return guard::real_path(o_.course_root);
        for (const auto& a : allowed) {
            const auto at = a.rfind("/common/");
            if (at != std::string::npos) return a.substr(0, at);
        }
        return "";
    }

    int check_dependencies(const std::string& scratch) {
        const std::string dep_file = scratch + "/deps.d";
        // Its messages are never shown, they could quote a file the student may not read;
        // they are kept only to tell a resource limit from an error.
        const worker_run r = guard::run_bounded(dependency_command(cc_, family_, dep_file), o_.limits, hidden_bytes);
        if (const limit_hit hit = detect_limit(r.output_tail, r.term_signal, r.timed_out, never); hit != limit_hit::none)
            return refuse("the dependency pass over kernels.cu " + limit_words(hit, o_.limits) +
                          "; does it include a device or a huge file?");
        if (!r.exited_normally() || r.exit_code != 0)
            return refuse("the preprocessor failed on kernels.cu (an #error, a bad #if, or an #include that is not "
                          "found?); its messages are not shown, since they could quote other files");
        std::string text;
        if (!guard::read_file(dep_file, text, 64u << 20)) return usage("cannot read the dependency file " + dep_file);

        path_policy policy;
        policy.source = source_real_;
        policy.wrapper = guard::real_path(cc_.input);
        for (const auto& a : o_.allow) {
            const std::string p = guard::real_path(a);
            if (!p.empty()) policy.allowed.push_back(!a.empty() && a.back() == '/' ? p + "/" : p);
        }
        policy.system_roots = system_roots(scratch);
        const std::string root = course_root(policy.allowed);

        std::vector<std::string> reached;
        bool saw_source = false;
        for (const auto& dep : parse_make_rule(text)) {
            std::string real = guard::real_path(dep);
            if (real.empty()) {
                // Only g++ -MG lists a header it did not find; the compile will say so.
                if (family_ == compiler_family::gcc) continue;
                real = dep;
            }
            const path_kind kind = classify_path(real, policy);
            if (kind == path_kind::source) saw_source = true;
            if (kind != path_kind::forbidden) continue;
            const std::string shown = shown_path(real, root);
            if (std::find(reached.begin(), reached.end(), shown) == reached.end()) reached.push_back(shown);
        }
        if (!reached.empty()) {
            std::vector<finding> found;
            for (const auto& shown : reached) found.push_back({0, reaches_message(shown)});
            return refuse(found);
        }
        if (!saw_source) return usage("the compile command does not include " + o_.source + ": check --source");
        return 0;
    }

    // ---- 3. the file's own tokens ----

    int check_tokens(const std::string& scratch) {
        std::vector<bool> views = {false};
        if (family_ == compiler_family::nvcc) views.push_back(true);  // nvcc -E gives the device view
        std::vector<finding> found;
        for (const bool host_view : views) {
            const std::string out = scratch + (host_view ? "/host.ii" : "/pre.ii");
            const worker_run r =
                guard::run_bounded(preprocess_command(cc_, family_, out, host_view), o_.limits, hidden_bytes);
            if (const limit_hit hit = detect_limit(r.output_tail, r.term_signal, r.timed_out, never);
                hit != limit_hit::none)
                return refuse("preprocessing kernels.cu " + limit_words(hit, o_.limits));
            if (!r.exited_normally() || r.exit_code != 0) {
                // Every file it reaches is allowed, so the compile may run and say what is
                // wrong (a missing header, an #error); were it to succeed, it is refused.
                tokens_unchecked_ = true;
                return 0;
            }
            std::string text;
            if (!guard::read_file(out, text, guard::bounds::file_size_bytes))
                return refuse("the preprocessed kernels.cu is too large to check");
            for (const auto& f : scan_preprocessed(text, [&](const std::string& file) { return is_source(file); }, o_.ns)) {
                const bool seen = std::any_of(found.begin(), found.end(), [&](const finding& g) {
                    return g.line == f.line && g.message == f.message;
                });
                if (!seen) found.push_back(f);
            }
        }
        return found.empty() ? 0 : refuse(found);
    }

    // ---- 4. the compile ----

    int compile() {
        const worker_run r = guard::run_bounded(o_.command, o_.limits, o_.log_bytes);
        const auto source = [&](const std::string& file) { return is_source(file); };
        const diagnostics d = filter_diagnostics(r.output_tail, source, spellings_, o_.display);
        for (const auto& line : d.kept) std::cerr << line << "\n";
        if (r.output_bytes > o_.log_bytes)
            std::cerr << "course_cc_guard: the compiler's output was cut after " << o_.log_bytes << " bytes ("
                      << r.output_bytes - o_.log_bytes << " more)\n";
        const bool ok = r.exited_normally() && r.exit_code == 0;
        if (ok && tokens_unchecked_)
            return refuse("the guard's preprocessor pass failed on kernels.cu where the compile did not, so its "
                          "tokens could not be checked");
        if (ok) {
            if (!fs::exists(cc_.output)) return usage("the compiler made no object " + cc_.output);
            return 0;
        }
        std::error_code ignored;
        fs::remove(cc_.output, ignored);
        const limit_hit hit = detect_limit(r.output_tail, r.term_signal, r.timed_out, source);
        if (hit != limit_hit::none) {
            std::cerr << o_.display << ": error: compiling kernels.cu " << limit_words(hit, o_.limits) << "\n";
        } else if (d.kept.empty()) {
            std::cerr << o_.display << ": error: the compiler reported " << d.hidden_lines
                      << " lines about other files (hidden); they usually come from a macro or an include in "
                         "kernels.cu\n";
        }
        if (r.spawn_failed) return usage("cannot run " + o_.command[0]);
        return r.exited_normally() && r.exit_code > 0 ? r.exit_code : 1;
    }

    // ---- 5. the object ----

    bool tool_output(const std::vector<std::string>& argv, std::string& out) {
        guard::bounds b = o_.limits;
        b.cpu_seconds = std::min<std::uint64_t>(b.cpu_seconds, 120);
        const worker_run r = guard::run_bounded(argv, b, max_tool_output);
        out = r.output_tail;
        return r.exited_normally() && r.exit_code == 0 && r.output_bytes <= max_tool_output;
    }

    int check_object_file() {
        const std::string& obj = cc_.output;
        object_dump dump;
        const bool read = tool_output({tools_["nm"], "-P", obj}, dump.nm) &&
                          tool_output({tools_["readelf"], "-SW", obj}, dump.sections) &&
                          tool_output({tools_["readelf"], "-rW", obj}, dump.relocations) &&
                          tool_output({tools_["readelf"], "-sW", obj}, dump.symbols) &&
                          tool_output({tools_["objdump"], "-dr", "--no-show-raw-insn", obj}, dump.disassembly);
        if (!read) {
            std::error_code ignored;
            fs::remove(obj, ignored);
            return usage("cannot read the object " + obj + " with nm, readelf and objdump");
        }
        const auto found = check_object(dump, backend_, o_.ns);
        return found.empty() ? 0 : refuse(found);
    }

    options o_;
    backend backend_ = backend::gpu;
    compiler_family family_ = compiler_family::gcc;
    std::map<std::string, std::string> tools_;
    std::string source_real_;
    std::string source_text_;
    compile_command cc_;
    std::vector<std::string> spellings_;
    std::map<std::string, bool> source_files_;
    bool tokens_unchecked_ = false;  // a preprocessor pass failed: the compile must fail too
};

}  // namespace

int main(int argc, char** argv) {
    // Everything after the first `--` is the compile command, untouched.
    std::vector<std::string> own = {argv[0]};
    options o;
    int k = 1;
    for (; k < argc && std::string(argv[k]) != "--"; ++k) own.emplace_back(argv[k]);
    for (++k; k < argc; ++k) o.command.emplace_back(argv[k]);

    CLI::App app{"Checks and compiles a student's lab file: course_cc_guard [options] -- <compile command>"};
    app.add_option("--lab", o.lab, "the lab (lab1 ... lab5)")->required();
    app.add_option("--backend", o.backend_name, "gpu or emulated")->required()->check(CLI::IsMember({"gpu", "emulated"}));
    app.add_option("--source", o.source, "the student's kernels.cu")->required();
    app.add_option("--namespace", o.ns, "the namespace LAB_IMPL names, e.g. lab3_student")->required();
    app.add_option("--display-name", o.display, "how messages name the file (default: --source)");
    app.add_option("--allow", o.allow, "a file the lab file may reach; a trailing / means a folder");
    app.add_option("--system", o.system, "an extra system include folder");
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
    return guard_run(std::move(o)).run();
}
