// The forbidden-library check on the student's source and on `nm -C` of its object.
#include <optional>
#include <regex>
#include <sstream>

#include "rules/rules_text.hpp"
#include "core/tool_output.hpp"

namespace course {

using rules::detail::lines_of;
using rules::detail::trimmed;

namespace {

// Blanks comments, and string and character literals too when `strings`, keeping line
// breaks. Raw strings (R"x(...)x") and escapes are understood; a ' after a letter or digit
// is a digit separator (1'000), not a character literal.
std::string blank_source(const std::string& src, bool strings) {
    std::string out = src;
    auto blank = [&](std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to && i < out.size(); ++i)
            if (out[i] != '\n') out[i] = ' ';
    };
    std::size_t i = 0;
    while (i < src.size()) {
        const char c = src[i];
        const char next = i + 1 < src.size() ? src[i + 1] : '\0';
        if (c == '/' && next == '/') {
            const std::size_t end = src.find('\n', i);
            blank(i, end == std::string::npos ? src.size() : end);
            i = end == std::string::npos ? src.size() : end;
        } else if (c == '/' && next == '*') {
            const std::size_t end = src.find("*/", i + 2);
            const std::size_t stop = end == std::string::npos ? src.size() : end + 2;
            blank(i, stop);
            i = stop;
        } else if (c == '"' && i > 0 && src[i - 1] == 'R') {
            const std::size_t open = src.find('(', i);
            const std::string close = ")" + src.substr(i + 1, open == std::string::npos ? 0 : open - i - 1) + "\"";
            const std::size_t end = open == std::string::npos ? std::string::npos : src.find(close, open);
            const std::size_t stop = end == std::string::npos ? src.size() : end + close.size();
            if (strings) blank(i + 1, stop - 1);
            i = stop;
        } else if (c == '"' || (c == '\'' && !(i > 0 && std::isalnum(static_cast<unsigned char>(src[i - 1]))))) {
            std::size_t j = i + 1;
            while (j < src.size() && src[j] != c && src[j] != '\n') j += src[j] == '\\' ? 2 : 1;
            if (strings) blank(i + 1, std::min(j, src.size()));
            i = j + 1;
        } else {
            ++i;
        }
    }
    return out;
}

// The symbol of one `nm -C` line: "0000000000000000 T name" or "                 U name".
std::string nm_symbol(const std::string& line) {
    std::istringstream in(line);
    std::string first, type;
    in >> first;
    if (first.size() > 1) in >> type;  // first was the address
    std::string rest;
    std::getline(in, rest);
    return trimmed(rest);
}

}  // namespace

std::string blank_comments_and_strings(const std::string& source) { return blank_source(source, true); }

std::vector<std::string> forbidden_library_uses(const std::string& source, const std::string& nm_output,
                                                const std::vector<library_rule>& rules) {
    struct compiled {
        const library_rule* rule;
        std::optional<std::regex> include, code, symbol;
    };
    std::vector<compiled> compiled_rules;
    for (const auto& r : rules) {
        compiled c{&r, {}, {}, {}};
        if (!r.include.empty()) c.include.emplace(r.include);
        if (!r.code.empty()) c.code.emplace(r.code);
        if (!r.symbol.empty()) c.symbol.emplace(r.symbol);
        compiled_rules.push_back(std::move(c));
    }
    // Header names in the preprocessor lines (#include, and #define of a header name),
    // read with comments blanked; the code with strings blanked too.
    static const std::regex header_name(R"([<"]([^<>"]+)[>"])");
    const auto raw = lines_of(source);
    const auto directives = lines_of(blank_source(source, false));
    const auto code = lines_of(blank_source(source, true));
    std::vector<std::string> found;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        const std::string directive = i < directives.size() ? trimmed(directives[i]) : "";
        const std::string text = i < code.size() ? code[i] : "";
        for (const auto& c : compiled_rules) {
            bool hit = false, included = false;
            if (c.include && !directive.empty() && directive[0] == '#') {
                for (std::sregex_iterator m(directive.begin(), directive.end(), header_name), e; m != e && !hit; ++m)
                    hit = std::regex_search((*m)[1].str(), *c.include);
                included = hit;
            }
            if (!hit && c.code) hit = std::regex_search(text, *c.code);
            // The include counts by itself: a namespace alias or a macro could call into
            // the library where no pattern sees it.
            if (hit)
                found.push_back(c.rule->name + ": line " + std::to_string(i + 1) + ": " + trimmed(raw[i]) +
                                (included ? " (an include counts even when nothing from it is called: remove it if "
                                            "you do not use it)"
                                          : ""));
        }
    }
    int symbols = 0;
    for (const auto& line : lines_of(nm_output)) {
        const std::string sym = nm_symbol(line);
        for (const auto& c : compiled_rules) {
            if (c.symbol && std::regex_search(sym, *c.symbol) && symbols < 8) {
                found.push_back(c.rule->name + ": symbol " + sym);
                ++symbols;
                break;
            }
        }
    }
    return found;
}

}  // namespace course
