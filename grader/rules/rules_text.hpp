#pragma once
// Small text helpers that several files of grader_core share (compile commands, compiler
// messages, object dumps, the CUDA tools' output): internal to it, hence namespace detail.
#include <string>
#include <vector>

namespace course::rules::detail {

bool starts_with(const std::string& s, const std::string& prefix);
// The lines of `text`, each without a trailing '\r'.
std::vector<std::string> lines_of(const std::string& text);
// `s` without its leading and trailing blanks, tabs and '\r'.
std::string trimmed(const std::string& s);
// The blank-separated words of a line.
std::vector<std::string> words(const std::string& line);

}  // namespace course::rules::detail
