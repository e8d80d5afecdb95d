#include "rules/rules_lexer.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace course::rules::detail {

namespace {

bool is_ident_start(unsigned char c) { return std::isalpha(c) || c == '_' || c == '$' || c >= 0x80; }
bool is_ident_char(unsigned char c) { return std::isalnum(c) || c == '_' || c == '$' || c >= 0x80; }

}  // namespace

void lexer::feed(const std::string& text, const std::vector<int>& lines, std::vector<token>& out) {
    std::size_t i = 0;
    bool first = true;
    auto emit = [&](token::kind_t kind, std::size_t from, std::size_t to) {
        out.push_back({kind, text.substr(from, to - from), lines[from], first, from});
        first = false;
    };
    while (i < text.size()) {
        if (in_comment_) {
            const auto end = text.find("*/", i);
            if (end == std::string::npos) return;
            in_comment_ = false;
            i = end + 2;
            continue;
        }
        if (raw_delim_) {
            const std::string close = ")" + *raw_delim_ + "\"";
            const auto end = text.find(close, i);
            if (end == std::string::npos) return;  // the literal goes on past this line
            raw_delim_.reset();
            out.push_back({token::literal, "R\"\"", raw_line_, raw_first_, 0});
            first = false;
            i = end + close.size();
            continue;
        }
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (std::isspace(c)) {
            ++i;
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
            return;
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
            in_comment_ = true;
            i += 2;
        } else if (is_ident_start(c)) {
            std::size_t j = i;
            while (j < text.size() && is_ident_char(static_cast<unsigned char>(text[j]))) ++j;
            const std::string word = text.substr(i, j - i);
            const bool prefix = word == "u8" || word == "u" || word == "U" || word == "L";
            const bool raw_prefix = word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR";
            if (raw_prefix && j < text.size() && text[j] == '"') {
                const auto open = text.find('(', j + 1);
                const std::string delim = open == std::string::npos ? "" : text.substr(j + 1, open - j - 1);
                if (open != std::string::npos && delim.size() <= 16 &&
                    delim.find_first_of(" ()\\\t\v\f") == std::string::npos) {
                    raw_delim_ = delim;
                    raw_line_ = lines[i];
                    raw_first_ = first;
                    i = open + 1;
                    continue;
                }
                // Not a raw string after all (the compiler rejects it): lex the rest plainly.
            }
            if (prefix && j < text.size() && (text[j] == '"' || text[j] == '\'')) {
                i = quoted(text, i, j, lines, out, first);
                continue;
            }
            emit(token::identifier, i, j);
            i = j;
        } else if (std::isdigit(c) || (c == '.' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
            std::size_t j = i + 1;
            while (j < text.size()) {
                const unsigned char d = static_cast<unsigned char>(text[j]);
                if ((d == '+' || d == '-') && std::strchr("eEpP", text[j - 1]) != nullptr) {
                    ++j;
                } else if (d == '\'' && j + 1 < text.size() && is_ident_char(static_cast<unsigned char>(text[j + 1]))) {
                    j += 2;  // a digit separator
                } else if (is_ident_char(d) || d == '.') {
                    ++j;
                } else {
                    break;
                }
            }
            emit(token::number, i, j);
            i = j;
        } else if (c == '"' || c == '\'') {
            i = quoted(text, i, i, lines, out, first);
        } else {
            static const char* const multi[] = {"%:%:", "%:", "##", "::", "<%", "%>", "->", "&&", "||"};
            std::size_t len = 1;
            for (const char* m : multi) {
                if (text.compare(i, std::strlen(m), m) == 0) {
                    len = std::strlen(m);
                    break;
                }
            }
            token t{token::punct, text.substr(i, len), lines[i], first, i};
            // Digraphs spell the same punctuators; `%:` is `#`.
            if (t.text == "%:") t.text = "#";
            if (t.text == "%:%:") t.text = "##";
            if (t.text == "<%") t.text = "{";
            if (t.text == "%>") t.text = "}";
            out.push_back(t);
            first = false;
            i += len;
        }
    }
}

std::size_t lexer::quoted(const std::string& text, std::size_t start, std::size_t q, const std::vector<int>& lines,
                          std::vector<token>& out, bool& first) {
    const char quote = text[q];
    std::size_t j = q + 1;
    while (j < text.size() && text[j] != quote) j += text[j] == '\\' ? 2 : 1;
    j = std::min(j + 1, text.size());
    out.push_back({token::literal, text.substr(start, j - start), lines[start], first, start});
    first = false;
    return j;
}

bool is(const token& t, const char* text) { return t.text == text; }

}  // namespace course::rules::detail
