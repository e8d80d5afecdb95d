#include "rules/rules_preprocessed.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "rules/rules_lexer.hpp"
#include "rules/rules_pragma.hpp"

namespace course::rules {

using detail::disallowed_pragma;
using detail::is;
using detail::lexer;
using detail::pragma_message;
using detail::token;

namespace {

std::string strip_underscores(std::string s) {
    if (s.size() > 4 && s.compare(0, 2, "__") == 0 && s.compare(s.size() - 2, 2, "__") == 0) s = s.substr(2, s.size() - 4);
    return s;
}

// A string literal holding a printf conversion that ends in `n` (flags, width, precision
// and length modifiers between).
bool has_printf_n(const std::string& lit) {
    const auto quote = lit.find('"');
    if (quote == std::string::npos) return false;
    for (std::size_t i = quote + 1; i < lit.size(); ++i) {
        if (lit[i] != '%') continue;
        std::size_t j = i + 1;
        if (j < lit.size() && lit[j] == '%') {
            i = j;
            continue;
        }
        while (j < lit.size() && (std::strchr("-+ #0'.*$hljztL", lit[j]) != nullptr ||
                                  std::isdigit(static_cast<unsigned char>(lit[j]))))
            ++j;
        if (j < lit.size() && lit[j] == 'n') return true;
    }
    return false;
}

// Compiler built-ins a lab file may use: none of them reads or writes memory. Every other
// `__builtin_` name (memcpy, alloca, frame_address, the x86 ones that store without the
// emulator seeing it, ...) is refused.
bool allowed_builtin(const std::string& name) {
    static const std::set<std::string> exact = {
        "__builtin_expect", "__builtin_unreachable", "__builtin_trap", "__builtin_constant_p",
        "__builtin_offsetof", "__builtin_is_constant_evaluated", "__builtin_assume_aligned", "__builtin_isnan",
        "__builtin_isinf", "__builtin_isfinite", "__builtin_isnormal", "__builtin_signbit", "__builtin_LINE",
        "__builtin_FILE", "__builtin_FUNCTION", "__builtin_assume"};
    static const char* const families[] = {"__builtin_popcount", "__builtin_clz", "__builtin_ctz", "__builtin_ffs",
                                           "__builtin_parity", "__builtin_bswap", "__builtin_fabs", "__builtin_sqrt",
                                           "__builtin_fma", "__builtin_copysign", "__builtin_huge_val",
                                           "__builtin_inf", "__builtin_nan", "__builtin_fmin", "__builtin_fmax"};
    if (exact.count(name) != 0) return true;
    for (const char* f : families)
        if (name.compare(0, std::strlen(f), f) == 0) return true;
    return false;
}

// Checks the tokens of the student's lines.
class token_rules {
public:
    token_rules(const std::string& ns, std::vector<finding>& found) : ns_(ns), found_(found) {}

    void run(const std::vector<token>& t) {
        for (std::size_t i = 0; i < t.size(); ++i) {
            const token& k = t[i];
            if (k.kind == token::identifier) {
                if (is(k, "asm") || is(k, "__asm") || is(k, "__asm__")) {
                    add(k.line, "inline assembly is not allowed in lab files");
                } else if (k.text.find("__tsan_") != std::string::npos || k.text.find("__ubsan_") != std::string::npos) {
                    // Anywhere in the name: gcc also declares __builtin___tsan_write4 and the like.
                    add(k.line, "kernels.cu names `" + k.text +
                                    "`, a callback of the emulator's memory tracing: lab files may not call it");
                } else if (is(k, "g_current")) {
                    // No macro of the emulator expands to it: only a file that tampers with the
                    // emulator's idea of the running thread (and so with its race checks) names it.
                    add(k.line, "kernels.cu names the emulator's `g_current`: lab files may not touch the emulator's state");
                } else if (k.text.compare(0, 10, "__builtin_") == 0 && !allowed_builtin(k.text)) {
                    add(k.line, "kernels.cu uses `" + k.text +
                                    "`: compiler built-ins that reach memory or the stack are not allowed in lab files");
                } else if (is(k, "alloca")) {
                    add(k.line, "kernels.cu calls `alloca`: a lab file's stack frames have fixed sizes");
                } else if (is(k, "exit")) {
                    add(k.line, "kernels.cu calls `exit`: kernels may call only device code and the CUDA built-ins");
                } else if (is(k, "goto") && i + 1 < t.size() && is(t[i + 1], "*")) {
                    add(k.line, "a computed goto is not allowed in lab files");
                } else if (is(k, "__attribute__") || is(k, "__attribute")) {
                    i = attribute(t, i + 1, "(", ")");
                    continue;
                } else if (is(k, "namespace") && !(i > 0 && is(t[i - 1], "using"))) {
                    i = namespace_head(t, i);
                    continue;
                } else if (is(k, "template") && i + 1 < t.size() && is(t[i + 1], "<")) {
                    specialization(t, i);
                }
            } else if (k.kind == token::literal && has_printf_n(k.text)) {
                add(k.line, "a string with printf's %n conversion: %n writes to memory through a pointer, which "
                            "kernels may not do");
            } else if (is(k, "[") && i + 1 < t.size() && is(t[i + 1], "[")) {
                i = attribute(t, i + 1, "[", "]");
                continue;
            } else if (is(k, "{")) {
                frames_.push_back(false);
            } else if (is(k, "}")) {
                if (!frames_.empty()) frames_.pop_back();
            }
        }
    }

private:
    void add(int line, const std::string& message) {
        // One finding per line and message is enough.
        for (const auto& f : found_) {
            if (f.line == line && f.message == message) return;
        }
        found_.push_back({line, message});
    }

    // `section("emu_shared")` or `section("emu_constant")`: what the emulator's __shared__ and
    // __constant__ expand to (cuda_emu.hpp). Data there is what kernel code may touch anyway.
    static bool emulator_section(const std::vector<token>& t, std::size_t i) {
        return strip_underscores(t[i].text) == "section" && i + 3 < t.size() && is(t[i + 1], "(") &&
               (is(t[i + 2], "\"emu_shared\"") || is(t[i + 2], "\"emu_constant\"")) && is(t[i + 3], ")");
    }

    // Skips a bracketed attribute list that starts at t[i] (`open`), checking the names in it.
    std::size_t attribute(const std::vector<token>& t, std::size_t i, const char* open, const char* close) {
        static const std::set<std::string> banned = {"section",     "alias",       "ifunc",         "weakref",
                                                     "symver",      "constructor", "destructor",    "init_priority",
                                                     "target_clones", "optimize",   "naked"};
        // What would hide the kernel's loads and stores from the emulator's tracing.
        static const std::set<std::string> untraced = {"no_sanitize", "no_sanitize_thread", "no_sanitize_undefined",
                                                       "disable_sanitizer_instrumentation"};
        if (i >= t.size() || !is(t[i], open)) return i - 1;
        int depth = 0;
        for (; i < t.size(); ++i) {
            if (is(t[i], open)) ++depth;
            if (is(t[i], close) && --depth == 0) return i;
            if (t[i].kind == token::identifier && banned.count(strip_underscores(t[i].text)) != 0 &&
                !emulator_section(t, i))
                add(t[i].line, "`__attribute__((" + strip_underscores(t[i].text) +
                                   "))` is not allowed in lab files: it places or runs code where the course does not call it");
            if (t[i].kind == token::identifier && untraced.count(strip_underscores(t[i].text)) != 0)
                add(t[i].line, "`__attribute__((" + strip_underscores(t[i].text) +
                                   "))` is not allowed in lab files: it hides the kernel's memory accesses from the "
                                   "emulator's checks");
        }
        return i;
    }

    // `template <...>` at t[i]: a specialization of another namespace's template (std::hash,
    // std::vector<T*>, ...) would give the worker's own uses of it the file's code.
    void specialization(const std::vector<token>& t, std::size_t i) {
        std::size_t j = i + 1;
        int depth = 0;
        for (; j < t.size(); ++j) {
            if (is(t[j], "<")) ++depth;
            if (is(t[j], ">") && --depth == 0) break;
        }
        if (j >= t.size()) return;
        const bool explicit_specialization = j == i + 2;
        auto qualified_outside = [&](std::size_t at) {
            return at + 1 < t.size() && t[at].kind == token::identifier && is(t[at + 1], "::") && t[at].text != ns_;
        };
        auto refuse = [&](std::size_t at) {
            add(t[at].line, "a lab file may not specialize a template outside namespace LAB_IMPL (`" + t[at].text +
                                "::" + (at + 2 < t.size() ? t[at + 2].text : "") + "`)");
        };
        for (std::size_t k = j + 1; k < t.size(); ++k) {
            if (is(t[k], "__attribute__") || is(t[k], "__attribute")) {
                k = attribute(t, k + 1, "(", ")");
                continue;
            }
            if (is(t[k], "[") && k + 1 < t.size() && is(t[k + 1], "[")) {
                k = attribute(t, k + 1, "[", "]");
                continue;
            }
            if (is(t[k], "struct") || is(t[k], "class") || is(t[k], "union")) {
                if (k + 1 < t.size() && qualified_outside(k + 1)) refuse(k + 1);
                return;
            }
            if (!explicit_specialization || is(t[k], "{") || is(t[k], ";") || is(t[k], "=")) return;
            if (is(t[k], "(")) {
                // The declarator-id: the last qualified name before the parameters (its
                // template arguments skipped), read backwards: name, ::, name, ...
                std::size_t start = k, depth_lt = 0;
                bool want_name = true;
                for (std::size_t m = k; m-- > j + 1;) {
                    if (is(t[m], ">")) ++depth_lt;
                    if (is(t[m], "<") && depth_lt > 0) --depth_lt;
                    if (depth_lt > 0 || is(t[m], "<") || is(t[m], ">")) continue;
                    if (want_name ? t[m].kind != token::identifier : !is(t[m], "::")) break;
                    start = m;
                    want_name = !want_name;
                }
                if (start < k && qualified_outside(start)) refuse(start);
                return;
            }
        }
    }

    // `namespace` at t[i]: reads its name up to `{` (a definition), `=` or `;`.
    std::size_t namespace_head(const std::vector<token>& t, std::size_t i) {
        std::vector<std::string> names;
        std::size_t j = i + 1;
        for (; j < t.size(); ++j) {
            if (is(t[j], "{") || is(t[j], "=") || is(t[j], ";")) break;
            if (is(t[j], "__attribute__") || is(t[j], "__attribute")) {
                j = attribute(t, j + 1, "(", ")");
            } else if (is(t[j], "[") && j + 1 < t.size() && is(t[j + 1], "[")) {
                j = attribute(t, j + 1, "[", "]");
            } else if (t[j].kind == token::identifier && !is(t[j], "inline")) {
                names.push_back(t[j].text);
            }
        }
        if (j >= t.size() || !is(t[j], "{")) return j;  // an alias, or broken code the compiler rejects
        const bool nested = std::find(frames_.begin(), frames_.end(), true) != frames_.end();
        const bool ok = nested || names.empty() || names.front() == ns_;
        if (!ok)
            add(t[i].line, "namespace `" + names.front() +
                               "` is not allowed in lab files: everything goes inside namespace LAB_IMPL (" + ns_ +
                               " here) or an anonymous namespace");
        frames_.push_back(ok);
        return j;
    }

    const std::string& ns_;
    std::vector<finding>& found_;
    std::vector<bool> frames_;  // open braces: true for a namespace that may hold any namespace
};

// A GCC line marker: `# 12 "file" 1 3`. Sets `line` and `file`.
bool line_marker(const std::string& s, int& line, std::string& file) {
    if (s.size() < 5 || s[0] != '#' || s[1] != ' ' || !std::isdigit(static_cast<unsigned char>(s[2]))) return false;
    std::size_t i = 2;
    long n = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) n = n * 10 + (s[i++] - '0');
    if (s.compare(i, 2, " \"") != 0) return false;
    i += 2;
    std::string name;
    for (; i < s.size() && s[i] != '"'; ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) ++i;
        name += s[i];
    }
    if (i >= s.size()) return false;
    for (++i; i < s.size(); ++i) {
        if (s[i] != ' ' && !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    }
    line = static_cast<int>(n);
    file = name;
    return true;
}

}  // namespace

std::vector<finding> scan_preprocessed(const std::string& text, const std::function<bool(const std::string&)>& is_source,
                                       const std::string& ns) {
    std::vector<finding> found;
    std::vector<token> toks;
    lexer lex;
    std::map<std::string, bool> source_files;
    bool in_source = false;
    int line = 1;
    std::istringstream in(text);
    for (std::string s; std::getline(in, s); ++line) {
        int marker_line = 0;
        std::string file;
        if (!lex.in_raw_string() && line_marker(s, marker_line, file)) {
            auto known = source_files.find(file);
            if (known == source_files.end()) known = source_files.emplace(file, is_source(file)).first;
            in_source = known->second;
            lex.reset();
            line = marker_line - 1;
            continue;
        }
        if (!in_source) continue;
        const auto start = s.find_first_not_of(" \t");
        if (!lex.in_raw_string() && start != std::string::npos && s.compare(start, 7, "#pragma") == 0) {
            // Written as #pragma or made by _Pragma: both reach the compiler as this line.
            std::vector<token> rest;
            lexer pragma_lexer;
            const std::string body = s.substr(start + 7);
            pragma_lexer.feed(body, std::vector<int>(body.size(), line), rest);
            const std::string bad = disallowed_pragma(rest);
            if (!bad.empty()) found.push_back({line, pragma_message(bad)});
            continue;
        }
        lex.feed(s, std::vector<int>(s.size(), line), toks);
    }
    token_rules(ns, found).run(toks);
    std::stable_sort(found.begin(), found.end(), [](const finding& a, const finding& b) { return a.line < b.line; });
    return found;
}

}  // namespace course::rules
