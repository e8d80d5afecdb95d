#include "rules/rules_source.hpp"

#include <cctype>
#include <cstring>
#include <set>

#include "rules/rules_lexer.hpp"
#include "rules/rules_pragma.hpp"

namespace course::rules {

using detail::disallowed_pragma;
using detail::is;
using detail::lexer;
using detail::pragma_message;
using detail::token;

namespace {

// The source with line splices removed (backslash, optional blanks, newline: GCC accepts
// the blanks) and every newline spelled '\n', split into physical lines that remember the
// original line of each char.
struct source_line {
    std::string text;
    std::vector<int> lines;
};
std::vector<source_line> spliced_lines(const std::string& src) {
    std::vector<source_line> out(1);
    int line = 1;
    for (std::size_t i = 0; i < src.size(); ++i) {
        char c = src[i];
        if (c == '\r') {
            c = '\n';
            if (i + 1 < src.size() && src[i + 1] == '\n') ++i;
        }
        if (c == '\\') {
            std::size_t j = i + 1;
            while (j < src.size() && (src[j] == ' ' || src[j] == '\t' || src[j] == '\f' || src[j] == '\v')) ++j;
            if (j < src.size() && (src[j] == '\n' || src[j] == '\r')) {
                if (src[j] == '\r' && j + 1 < src.size() && src[j + 1] == '\n') ++j;
                i = j;
                ++line;
                continue;
            }
        }
        if (c == '\n') {
            out.emplace_back();
            ++line;
            continue;
        }
        out.back().text += c;
        out.back().lines.push_back(line);
    }
    return out;
}

// ---- Header names ----

std::string header_name_problem(const std::string& name) {
    if (name.empty()) return "an empty header name";
    if (name[0] == '/') return "an absolute path";
    if (name.find("..") != std::string::npos) return "`..` in the path";
    for (const char c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && std::strchr("_./+-", c) == nullptr)
            return "a character other than letters, digits and _ . / + -";
    }
    return "";
}

// The text after `include` on a directive line: blanks, same-line comments, a header name
// in quotes or angle brackets, blanks and comments. Empty when it is that, else why not.
std::string include_problem(const std::string& rest) {
    std::size_t i = 0;
    auto skip_blank = [&]() -> bool {
        for (;;) {
            while (i < rest.size() && std::isspace(static_cast<unsigned char>(rest[i]))) ++i;
            if (rest.compare(i, 2, "/*") == 0) {
                const auto end = rest.find("*/", i + 2);
                if (end == std::string::npos) return false;
                i = end + 2;
            } else if (rest.compare(i, 2, "//") == 0) {
                i = rest.size();
            } else {
                return true;
            }
        }
    };
    if (!skip_blank() || i >= rest.size() || (rest[i] != '"' && rest[i] != '<'))
        return "#include must name a header in quotes or angle brackets, not a macro";
    const char close = rest[i] == '"' ? '"' : '>';
    const auto end = rest.find(close, i + 1);
    if (end == std::string::npos) return "#include must name a header in quotes or angle brackets, not a macro";
    const std::string name = rest.substr(i + 1, end - i - 1);
    const std::string why = header_name_problem(name);
    if (!why.empty()) return "#include of " + std::string(1, rest[i]) + name + close + " is not allowed: " + why;
    i = end + 1;
    if (!skip_blank() || i < rest.size()) return "#include has more text after its header name";
    return "";
}

}  // namespace

std::vector<finding> scan_directives(const std::string& source) {
    std::vector<finding> found;
    lexer lex;
    bool in_directive = false;
    bool body_allows_hash = false;  // in a function-like #define: `#` may stringize a parameter
    std::vector<token> directive;
    const auto lines = spliced_lines(source);

    const source_line* name_text = nullptr;  // the physical line holding the directive's name
    int first_macro_line = 0;                // the first #define or #undef, once seen
    auto check_directive = [&] {
        // directive[0] is '#'.
        if (directive.size() < 2) return;  // the null directive
        const token& name = directive[1];
        const int line = directive[0].line;
        if (name.kind == token::number) {
            found.push_back({line, "line markers (`# " + name.text + "`) are not allowed in lab files"});
            return;
        }
        static const std::set<std::string> plain = {"define", "undef", "if",      "ifdef",   "ifndef",  "elif",
                                                    "else",   "endif", "elifdef", "elifndef", "error", "warning"};
        if ((name.text == "define" || name.text == "undef") && first_macro_line == 0) first_macro_line = line;
        if (plain.count(name.text) != 0) return;
        if (name.text == "include") {
            // A header read after a macro of the file could mean something else than the
            // course and CUDA wrote (a renamed built-in, a hidden access): headers first.
            if (first_macro_line != 0)
                found.push_back({line, "#include after the #define or #undef on line " + std::to_string(first_macro_line) +
                                           ": every #include must come before the file's first macro, so that "
                                           "no macro can change what a header means"});
            // The raw text after `include` on its physical line: a header name is not lexed
            // as other tokens are (no escapes in "...", no tokens in <...>).
            const std::string why = include_problem(name_text->text.substr(name.pos + name.text.size()));
            if (!why.empty()) found.push_back({line, why});
            return;
        }
        if (name.text == "pragma") {
            const std::vector<token> rest(directive.begin() + 2, directive.end());
            const std::string bad = disallowed_pragma(rest);
            if (!bad.empty()) found.push_back({line, pragma_message(bad)});
            return;
        }
        found.push_back({line, "`#" + name.text + "` is not allowed in lab files"});
    };

    for (const auto& text : lines) {
        std::vector<token> toks;
        const bool continuing = in_directive;  // a block comment carried the directive over
        lex.feed(text.text, text.lines, toks);
        for (std::size_t k = 0; k < toks.size(); ++k) {
            const token& t = toks[k];
            if (!continuing && t.first && is(t, "#")) {
                in_directive = true;
                directive.clear();
                body_allows_hash = false;
            }
            if (in_directive) {
                directive.push_back(t);
                if (directive.size() == 2) name_text = &text;
                // In a #define body, `#` only stringizes a parameter of a function-like
                // macro (a `(` right after the name): an object-like macro's `#` could
                // start a forged line marker.
                if (directive.size() == 3 && is(directive[1], "define") && k + 1 < toks.size() &&
                    is(toks[k + 1], "(") && toks[k + 1].pos == t.pos + t.text.size())
                    body_allows_hash = true;
                if (directive.size() > 3 && is(directive[1], "define") && is(t, "#") &&
                    (!body_allows_hash || k + 1 >= toks.size() || toks[k + 1].kind != token::identifier))
                    found.push_back({t.line, "a `#` that is not a stringizing operator is not allowed in lab files"});
            } else if (is(t, "#")) {
                found.push_back({t.line, "a `#` outside a preprocessor directive is not allowed in lab files"});
            } else if (is(t, "##")) {
                found.push_back({t.line, "a `##` outside a preprocessor directive is not allowed in lab files"});
            }
            if (t.kind == token::identifier && (is(t, "_Pragma") || is(t, "__pragma")))
                found.push_back({t.line, "`_Pragma` is not allowed in lab files"});
        }
        if (in_directive && !lex.in_comment()) {
            lex.end_directive();
            check_directive();
            in_directive = false;
        }
    }
    if (in_directive) check_directive();
    return found;
}

}  // namespace course::rules
