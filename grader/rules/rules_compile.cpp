#include "rules/rules_compile.hpp"

#include <cctype>
#include <set>

#include "rules/rules_text.hpp"

namespace course::rules {

using detail::lines_of;
using detail::starts_with;

namespace {

std::string without_trailing_slash(std::string s) {
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
}

}  // namespace

compiler_family family_of(const std::string& compiler) {
    const auto slash = compiler.find_last_of('/');
    const std::string base = slash == std::string::npos ? compiler : compiler.substr(slash + 1);
    return base.find("nvcc") != std::string::npos ? compiler_family::nvcc : compiler_family::gcc;
}

compile_command split_compile_command(const std::vector<std::string>& command) {
    compile_command cc;
    // Flags that take the next argument as their value, and flags dropped with it.
    static const std::set<std::string> dropped_with_value = {"-o", "--output-file", "-MT", "-MF", "-MQ",
                                                             "--dependency-output", "--dependency-target-name"};
    static const std::set<std::string> dropped = {"-c", "--compile", "-MD", "-MMD", "-MP", "-M", "-MM", "-E",
                                                  "--generate-dependencies-with-compile",
                                                  "--generate-nonsystem-dependencies-with-compile",
                                                  "--generate-dependency-targets", "--generate-dependencies",
                                                  "--generate-nonsystem-dependencies", "--preprocess"};
    for (std::size_t i = 0; i < command.size(); ++i) {
        const std::string& a = command[i];
        if (i == 0) {
            cc.args.push_back(a);
            continue;
        }
        if (dropped_with_value.count(a) != 0) {
            if (i + 1 < command.size() && (a == "-o" || a == "--output-file")) cc.output = command[i + 1];
            ++i;
            continue;
        }
        if (a == "-c" || a == "--compile") {
            if (i + 1 < command.size() && !command[i + 1].empty() && command[i + 1][0] != '-') cc.input = command[i + 1];
            continue;
        }
        if (dropped.count(a) != 0) continue;
        if (starts_with(a, "--output-file=")) {
            cc.output = a.substr(14);
            continue;
        }
        if (starts_with(a, "-o") && a.size() > 2) {
            cc.output = a.substr(2);
            continue;
        }
        if (starts_with(a, "-MT") || starts_with(a, "-MF") || starts_with(a, "-MQ") ||
            starts_with(a, "--dependency-output=") || starts_with(a, "--dependency-target-name="))
            continue;
        cc.args.push_back(a);
    }
    return cc;
}

std::vector<std::string> dependency_command(const compile_command& cc, compiler_family family,
                                            const std::string& dep_file) {
    std::vector<std::string> out = cc.args;
    out.insert(out.end(), {"-M", "-MF", dep_file});
    if (family == compiler_family::gcc) out.push_back("-MG");
    return out;
}

std::vector<std::string> preprocess_command(const compile_command& cc, compiler_family family,
                                            const std::string& out_file, bool host_view) {
    std::vector<std::string> out = cc.args;
    if (family == compiler_family::nvcc && host_view) out.insert(out.end(), {"-U__CUDA_ARCH__", "-UCUDA_DOUBLE_MATH_FUNCTIONS"});
    out.insert(out.end(), {"-E", "-o", out_file});
    return out;
}

std::vector<std::string> parse_make_rule(const std::string& text) {
    std::vector<std::string> prereqs;
    std::string word;
    bool after_colon = false;
    auto flush = [&] {
        if (word.empty()) return;
        if (!after_colon && word.back() == ':') {
            after_colon = true;  // "target:" ends the targets
        } else if (!after_colon && word == ":") {
            after_colon = true;
        } else if (after_colon) {
            prereqs.push_back(word);
        }
        word.clear();
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
            flush();
            ++i;
            if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
        } else if (c == '\\' && i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '#')) {
            word += text[++i];
        } else if (c == '$' && i + 1 < text.size() && text[i + 1] == '$') {
            word += '$';
            ++i;
        } else if (c == '\n') {
            flush();
            after_colon = false;  // a new rule (phony targets of -MP)
        } else if (c == ' ' || c == '\t' || c == '\r') {
            flush();
        } else if (c == ':' && !after_colon && (i + 1 >= text.size() || std::isspace(static_cast<unsigned char>(text[i + 1])))) {
            word += c;
            flush();
        } else {
            word += c;
        }
    }
    flush();
    return prereqs;
}

std::vector<std::string> parse_search_dirs(const std::string& verbose_output) {
    std::vector<std::string> out;
    bool in_list = false;
    for (const auto& line : lines_of(verbose_output)) {
        if (line.find("search starts here:") != std::string::npos) {
            in_list = true;
        } else if (starts_with(line, "End of search list.")) {
            in_list = false;
        } else if (in_list && !line.empty() && line[0] == ' ') {
            std::string dir = line.substr(line.find_first_not_of(' '));
            const auto note = dir.find(" (framework directory)");
            if (note != std::string::npos) dir = dir.substr(0, note);
            out.push_back(dir);
        }
    }
    return out;
}

bool path_is_under(const std::string& path, const std::string& folder) {
    const std::string dir = without_trailing_slash(folder);
    if (dir == "/") return !path.empty() && path[0] == '/';
    return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/';
}

path_kind classify_path(const std::string& path, const path_policy& policy) {
    if (path == policy.source) return path_kind::source;
    if (path == policy.wrapper) return path_kind::wrapper;
    for (const auto& a : policy.allowed) {
        if (!a.empty() && a.back() == '/' ? path_is_under(path, a) : path == a) return path_kind::allowed;
    }
    for (const auto& root : policy.system_roots) {
        if (path_is_under(path, root)) return path_kind::system;
    }
    return path_kind::forbidden;
}

std::string shown_path(const std::string& path, const std::string& course_root) {
    if (!course_root.empty() && path_is_under(path, course_root))
        return path.substr(without_trailing_slash(course_root).size() + 1);
    return path;
}

std::string reaches_message(const std::string& shown) {
    return "kernels.cu may include only its contract header, CUDA headers and C++ standard headers; it reaches " + shown;
}

}  // namespace course::rules
