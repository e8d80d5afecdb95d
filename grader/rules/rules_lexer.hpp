#pragma once
// A C++ lexer, just enough to find directives, tokens and braces: the directive scan of the
// source (rules_source) and the scan of the student's lines in preprocessed output
// (rules_preprocessed) both read tokens with it. Internal to grader_core.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace course::rules::detail {

struct token {
    enum kind_t { identifier, number, literal, punct } kind = punct;
    std::string text;
    int line = 0;
    bool first = false;   // the first token of its physical line
    std::size_t pos = 0;  // where it starts in that line
};

// Lexes one physical line at a time and carries what spans lines: a block comment or a
// raw string literal. Ordinary string and character literals end at the line's end, as
// the preprocessor ends them.
class lexer {
public:
    // `lines[i]` is the line of the student's file that char i of `text` came from.
    void feed(const std::string& text, const std::vector<int>& lines, std::vector<token>& out);

    // A directive ends with its line: a raw string left open there is not continued.
    void end_directive() { raw_delim_.reset(); }
    bool in_comment() const { return in_comment_; }
    bool in_raw_string() const { return raw_delim_.has_value(); }
    void reset() {
        in_comment_ = false;
        raw_delim_.reset();
    }

private:
    // A string or character literal starting at `start` (its prefix) with the quote at `q`.
    std::size_t quoted(const std::string& text, std::size_t start, std::size_t q, const std::vector<int>& lines,
                       std::vector<token>& out, bool& first);

    bool in_comment_ = false;
    std::optional<std::string> raw_delim_;
    int raw_line_ = 0;
    bool raw_first_ = false;
};

// Whether `t` is spelled `text` (the rules compare tokens with literals all the time).
bool is(const token& t, const char* text);

}  // namespace course::rules::detail
