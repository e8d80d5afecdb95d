#include "rules/rules_pragma.hpp"

#include <algorithm>
#include <cstring>

namespace course::rules::detail {

namespace {

// What a pragma's unroll count may be made of: a constant expression, never a string.
bool expression_token(const token& t) {
    if (t.kind == token::identifier || t.kind == token::number) return true;
    if (t.kind != token::punct) return false;
    return t.text == "::" || t.text == "&&" || t.text == "||" ||
           (t.text.size() == 1 && std::strchr("()+-*/%<>&|^~!?:=", t.text[0]) != nullptr);
}

}  // namespace

std::string disallowed_pragma(const std::vector<token>& toks) {
    auto all_expression = [&](std::size_t from) {
        return std::all_of(toks.begin() + static_cast<std::ptrdiff_t>(from), toks.end(), expression_token);
    };
    if (toks.empty()) return "";
    if (is(toks[0], "unroll") && all_expression(1)) return "";
    if ((is(toks[0], "nounroll") || is(toks[0], "once")) && toks.size() == 1) return "";
    if (is(toks[0], "GCC") && toks.size() >= 2 && is(toks[1], "unroll") && all_expression(2)) return "";
    std::string name = "#pragma " + toks[0].text;
    if ((is(toks[0], "GCC") || is(toks[0], "STDC") || is(toks[0], "clang")) && toks.size() >= 2) name += " " + toks[1].text;
    return name;
}

std::string pragma_message(const std::string& name) {
    return "`" + name + "` is not allowed in lab files (only #pragma unroll, nounroll, once and GCC unroll)";
}

}  // namespace course::rules::detail
