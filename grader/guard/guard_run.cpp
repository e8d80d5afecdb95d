// The guard's phases but the dependency check (guard_dependencies.cpp), and what the
// student sees of a refusal.
#include "guard/guard_run.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "rules/rules_object_flow.hpp"

namespace fs = std::filesystem;

namespace course::guard {

using namespace course::rules;

namespace {

constexpr std::size_t max_source_bytes = 1u << 20;
constexpr std::size_t max_tool_output = 256u << 20;

}  // namespace

std::string guard_run::limit_words(limit_hit hit) const {
    const bounds& b = o_.limits;
    switch (hit) {
    case limit_hit::cpu: return "ran out of its " + std::to_string(b.cpu_seconds) + " s CPU limit";
    case limit_hit::memory: return "hit its " + std::to_string(b.memory_mb) + " MiB memory limit";
    case limit_hit::file_size:
        return "hit its " + std::to_string(bounds::file_size_bytes >> 20) + " MiB file-size limit";
    case limit_hit::wall_clock:
        return "ran past its " + std::to_string(static_cast<long>(b.wall_seconds())) + " s wall-clock limit";
    case limit_hit::none: break;
    }
    return "";
}

limit_hit guard_run::hidden_pass_limit(const worker_run& r) {
    return detect_limit(r.output_tail, r.term_signal, r.timed_out, [](const std::string&) { return false; });
}

int guard_run::run() {
    std::error_code ignored;
    fs::remove(o_.verdict_file, ignored);  // never an old verdict for this compile
    const int code = run_phases();
    // An accepted file whose verdict nobody can read must not pass for one.
    if (!write_verdict(code) && code == 0) {
        fs::remove(cc_.output, ignored);
        return exit_usage;
    }
    return code;
}

bool guard_run::write_verdict(int code) {
    if (code == 0) decision_ = verdict_compiled;
    const nlohmann::json v = {{"verdict", decision_}, {"source", o_.display}, {"exit_code", code}};
    const fs::path path(o_.verdict_file);
    const std::string tmp = o_.verdict_file + ".tmp";
    std::error_code failed;
    if (path.has_parent_path()) fs::create_directories(path.parent_path(), failed);
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << v.dump() << "\n";
        failed = out ? failed : std::make_error_code(std::errc::io_error);
    }
    if (!failed) fs::rename(tmp, path, failed);
    if (failed) std::cerr << "course_cc_guard: cannot write its verdict to " << o_.verdict_file << "\n";
    return !failed;
}

int guard_run::run_phases() {
    if (!setup()) return exit_usage;
    std::error_code ignored;
    fs::remove(cc_.output, ignored);  // a refused or failed file leaves no object, not even an old one
    if (int code = check_source(); code != 0) return code;
    scratch_dir scratch;
    if (scratch.path().empty()) return usage("cannot make a scratch folder");
    if (int code = check_dependencies(scratch.path()); code != 0) return code;
    if (int code = check_tokens(scratch.path()); code != 0) return code;
    if (int code = compile(); code != 0) return code;
    return check_object_file();
}

int guard_run::usage(const std::string& why) {
    std::cerr << "course_cc_guard: " << why << "\n";
    return exit_usage;
}

bool guard_run::setup_fails(const std::string& why) {
    usage(why);
    return false;
}

bool guard_run::setup() {
    backend_ = o_.backend_name == "gpu" ? backend::gpu : backend::emulated;
    const std::string compiler = find_program(o_.command[0]);
    if (compiler.empty()) return setup_fails("cannot find the compiler " + o_.command[0]);
    o_.command[0] = compiler;
    family_ = family_of(compiler);
    for (const char* tool : {"nm", "readelf", "objdump", "objcopy"}) {
        tools_[tool] = find_program(tool);
        if (tools_[tool].empty()) return setup_fails(std::string("cannot find ") + tool + " (binutils)");
    }
    source_real_ = real_path(o_.source);
    if (source_real_.empty()) return setup_fails("cannot find the source " + o_.source);
    cc_ = split_compile_command(o_.command);
    if (cc_.input.empty()) return setup_fails("the compile command has no `-c FILE`");
    if (cc_.output.empty()) return setup_fails("the compile command has no `-o OBJECT`");
    spellings_ = {o_.source, source_real_};
    return true;
}

// ---- what the student sees ----

std::string guard_run::excerpt(int line) const {
    std::istringstream in(source_text_);
    std::string s;
    for (int k = 1; k <= line && std::getline(in, s); ++k) {
    }
    const auto start = s.find_first_not_of(" \t");
    s = start == std::string::npos ? "" : s.substr(start);
    if (s.size() > 160) s = s.substr(0, 157) + "...";
    return s;
}

int guard_run::refuse(const std::vector<finding>& found) {
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
    decision_ = verdict_refused;
    return exit_refused;
}

int guard_run::refuse(const std::string& message) { return refuse(std::vector<finding>{{0, message}}); }

bool guard_run::is_source(const std::string& file) {
    const auto known = source_files_.find(file);
    if (known != source_files_.end()) return known->second;
    const bool yes = real_path(file) == source_real_;
    source_files_[file] = yes;
    if (yes && std::find(spellings_.begin(), spellings_.end(), file) == spellings_.end()) spellings_.push_back(file);
    return yes;
}

// ---- 1. directives ----

int guard_run::check_source() {
    // A link would make another file (another lab's solution, /etc/passwd) the
    // "student's file", whose messages the compile shows.
    std::error_code ec;
    const auto status = fs::symlink_status(o_.source, ec);
    if (fs::is_symlink(status) || !fs::is_regular_file(status))
        return refuse("kernels.cu must be a plain file, not a link or a device");
    if (!read_file(o_.source, source_text_, max_source_bytes)) {
        if (source_text_.size() > max_source_bytes) return refuse("kernels.cu is larger than 1 MiB");
        return usage("cannot read " + o_.source);
    }
    const auto found = scan_directives(source_text_);
    return found.empty() ? 0 : refuse(found);
}

// ---- 3. the file's own tokens ----

int guard_run::check_tokens(const std::string& scratch) {
    std::vector<bool> views = {false};
    if (family_ == compiler_family::nvcc) views.push_back(true);  // nvcc -E gives the device view
    std::vector<finding> found;
    for (const bool host_view : views) {
        const std::string out = scratch + (host_view ? "/host.ii" : "/pre.ii");
        const worker_run r =
            run_bounded(preprocess_command(cc_, family_, out, host_view), o_.limits, hidden_bytes);
        if (const limit_hit hit = hidden_pass_limit(r); hit != limit_hit::none)
            return refuse("preprocessing kernels.cu " + limit_words(hit));
        if (!r.exited_normally() || r.exit_code != 0) {
            // Every file it reaches is allowed, so the compile may run and say what is
            // wrong (a missing header, an #error); were it to succeed, it is refused.
            tokens_unchecked_ = true;
            return 0;
        }
        std::string text;
        if (!read_file(out, text, bounds::file_size_bytes))
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

int guard_run::compile() {
    const worker_run r = run_bounded(o_.command, o_.limits, o_.log_bytes);
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
    // What the emulator lacks, where nvcc would compile the file: said in CUDA's words.
    const bool static_shared = std::any_of(d.kept.begin(), d.kept.end(), [](const std::string& l) {
        return l.find("duplicate 'static'") != std::string::npos;
    });
    if (backend_ == backend::emulated && static_shared)
        std::cerr << o_.display << ": note: on the CPU emulator __shared__ already declares a static array (one per "
                     "block), so `static __shared__` names static twice; write `__shared__` alone, which nvcc "
                     "compiles to the same\n";
    const limit_hit hit = detect_limit(r.output_tail, r.term_signal, r.timed_out, source);
    if (hit != limit_hit::none) {
        std::cerr << o_.display << ": error: compiling kernels.cu " << limit_words(hit) << "\n";
    } else if (d.kept.empty()) {
        std::cerr << o_.display << ": error: the compiler reported " << d.hidden_lines
                  << " lines about other files (hidden); they usually come from a macro or an include in "
                     "kernels.cu\n";
    }
    if (r.spawn_failed) return usage("cannot run " + o_.command[0]);
    decision_ = verdict_compile_error;
    return r.exited_normally() && r.exit_code > 0 ? r.exit_code : 1;
}

// ---- 5. the object ----

bool guard_run::tool_output(const std::vector<std::string>& argv, std::string& out) {
    bounds b = o_.limits;
    b.cpu_seconds = std::min<std::uint64_t>(b.cpu_seconds, 120);
    const worker_run r = run_bounded(argv, b, max_tool_output);
    out = r.output_tail;
    return r.exited_normally() && r.exit_code == 0 && r.output_bytes <= max_tool_output;
}

int guard_run::check_object_file() {
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
    if (!found.empty()) return refuse(found);
    return backend_ == backend::emulated ? edit_emulated_object(dump.sections, dump.nm) : 0;
}

// On the emulator a lab file's code is host code: its static data goes where kernel code
// may reach it, and its C library calls (those the compiler made by itself too) to the
// emulator's checked versions (common/emu/libc_shims.cpp).
int guard_run::edit_emulated_object(const std::string& sections, const std::string& nm) {
    const std::string& obj = cc_.output;
    std::vector<std::string> argv = {tools_["objcopy"]};
    for (auto& a : detail::emulated_object_edits(sections, nm, o_.ns, true)) argv.push_back(std::move(a));
    argv.push_back(obj);
    std::string out;
    if (tool_output(argv, out)) return 0;
    std::error_code ignored;
    fs::remove(obj, ignored);
    return usage("cannot edit the object " + obj + " with objcopy: " + out);
}

}  // namespace course::guard
