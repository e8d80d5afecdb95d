// The guard's second phase: every file the compile of the student's file reaches must be
// the file itself, a file the lab allows, or a header of the toolchain.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "guard/guard_run.hpp"
#include "guard/toolchain_cache.hpp"

namespace fs = std::filesystem;

namespace course::guard {

using namespace course::rules;

// ---- 2. dependencies ----

std::vector<std::string> guard_run::system_roots(const std::string& scratch, bool fresh_probe) {
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
        const fs::path bin = fs::path(real_path(o_.command[0])).parent_path();
        roots.push_back((bin / ".." / "include").string());
        for (const auto& entry : fs::directory_iterator(bin / ".." / "targets", ec))
            roots.push_back((entry.path() / "include").string());
    }
    host = find_program(host);
    if (!host.empty()) {
        const worker_run r = run_bounded({host, "-E", "-x", "c++", "-", "-v"}, o_.limits, 1u << 20);
        for (const auto& dir : parse_search_dirs(r.output_tail)) roots.push_back(dir);
    }
    for (const auto& s : o_.system) roots.push_back(s);
    add_toolchain_roots(roots, scratch, host, fresh_probe);
    std::vector<std::string> real;
    for (const auto& r : roots) {
        const std::string p = real_path(r);
        if (!p.empty()) real.push_back(p);
    }
    return real;
}

// Kept folders that hold the student's file, its wrapper or the course: never the
// toolchain's, whatever the file says.
bool guard_run::too_wide(const std::vector<std::string>& roots) const {
    const std::string course = course_root(o_.allow);
    for (const auto& r : roots)
        for (const std::string& inside : {source_real_, real_path(cc_.input), course})
            if (!inside.empty() && path_is_under(inside, r)) return true;
    return false;
}

// The folders of the headers that the same compile command reaches for standard and
// CUDA includes alone: whatever host compiler nvcc was set up with (a GCC under /opt,
// say), its built-in headers count as the toolchain's.
void guard_run::add_toolchain_roots(std::vector<std::string>& roots, const std::string& scratch,
                                    const std::string& host, bool fresh_probe) {
    if (cc_.input.empty()) return;
    const std::string ext = family_ == compiler_family::nvcc ? ".cu" : ".cpp";
    const std::string probe = scratch + "/toolchain_probe" + ext, deps = scratch + "/toolchain_probe.d";
    std::string text =
        "#include <cstddef>\n#include <cstdint>\n#include <climits>\n#include <cfloat>\n#include <cmath>\n"
        "#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <algorithm>\n#include <limits>\n"
        "#include <type_traits>\n#include <utility>\n#include <stdarg.h>\n";
    if (family_ == compiler_family::nvcc) text += "#include <cuda_runtime.h>\n#include <cooperative_groups.h>\n";
    compile_command probe_cc = cc_;
    for (auto& a : probe_cc.args)
        if (a == cc_.input) a = probe;
    // nvcc.profile beside nvcc sets its include folders too; /proc/self/exe: a new guard.
    const std::string compiler = find_program(o_.command[0]);
    const std::string key =
        toolchain_key(probe_cc.args, probe, text, toolchain_environment(),
                      {compiler, host, (fs::path(compiler).parent_path() / "nvcc.profile").string(), "/proc/self/exe"});
    if (!fresh_probe) {
        if (const auto cached = read_toolchain_roots(o_.toolchain_cache, key); cached && !too_wide(*cached)) {
            roots.insert(roots.end(), cached->begin(), cached->end());
            toolchain_cached_ = true;
            return;
        }
    }
    toolchain_cached_ = false;
    {
        std::ofstream out(probe);
        out << text;
        if (!out) return;
    }
    const worker_run r = run_bounded(dependency_command(probe_cc, family_, deps), o_.limits, hidden_bytes);
    std::string rule;
    if (!r.exited_normally() || r.exit_code != 0 || !read_file(deps, rule, 64u << 20)) return;
    std::vector<std::string> found;
    for (const auto& dep : parse_make_rule(rule)) {
        const std::string real = real_path(dep);
        if (!real.empty() && real != real_path(probe)) found.push_back(fs::path(real).parent_path().string());
    }
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    (void)write_toolchain_roots(o_.toolchain_cache, key, found);
    roots.insert(roots.end(), found.begin(), found.end());
}

std::string guard_run::course_root(const std::vector<std::string>& allowed) const {
    if (!o_.course_root.empty()) return real_path(o_.course_root);
    for (const auto& a : allowed) {
        const auto at = a.rfind("/common/");
        if (at != std::string::npos) return a.substr(0, at);
    }
    return "";
}

int guard_run::check_dependencies(const std::string& scratch) {
    const std::string dep_file = scratch + "/deps.d";
    // Its messages are never shown, they could quote a file the student may not read;
    // they are kept only to tell a resource limit from an error.
    const worker_run r = run_bounded(dependency_command(cc_, family_, dep_file), o_.limits, hidden_bytes);
    if (const limit_hit hit = hidden_pass_limit(r); hit != limit_hit::none)
        return refuse("the dependency pass over kernels.cu " + limit_words(hit) +
                      "; does it include a device or a huge file?");
    if (!r.exited_normally() || r.exit_code != 0)
        return refuse("the preprocessor failed on kernels.cu (an #error, a bad #if, or an #include that is not "
                      "found?); its messages are not shown, since they could quote other files");
    std::string text;
    if (!read_file(dep_file, text, 64u << 20)) return usage("cannot read the dependency file " + dep_file);

    path_policy policy;
    policy.source = source_real_;
    policy.wrapper = real_path(cc_.input);
    for (const auto& a : o_.allow) {
        const std::string p = real_path(a);
        if (!p.empty()) policy.allowed.push_back(!a.empty() && a.back() == '/' ? p + "/" : p);
    }
    policy.system_roots = system_roots(scratch, false);
    const std::string root = course_root(policy.allowed);

    std::vector<std::string> reached;
    bool saw_source = false;
    const auto classify = [&] {
        reached.clear();
        saw_source = false;
        for (const auto& dep : parse_make_rule(text)) {
            std::string real = real_path(dep);
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
    };
    classify();
    if (!reached.empty() && toolchain_cached_) {
        // Refused by the kept folders: never on their word alone (a toolchain moved since).
        policy.system_roots = system_roots(scratch, true);
        classify();
    }
    if (!reached.empty()) {
        std::vector<finding> found;
        for (const auto& shown : reached) found.push_back({0, reaches_message(shown)});
        return refuse(found);
    }
    if (!saw_source) return usage("the compile command does not include " + o_.source + ": check --source");
    return 0;
}

}  // namespace course::guard
