#pragma once
// Small text helpers that several of the rule files share (compile commands, compiler
// messages, object dumps): internal to grader_core, hence namespace detail.
#include <string>
#include <vector>

namespace course::rules::detail {

bool starts_with(const std::string& s, const std::string& prefix);
// The lines of `text`, each without a trailing '\r'.
std::vector<std::string> lines_of(const std::string& text);
// The blank-separated words of a line.
std::vector<std::string> words(const std::string& line);

}  // namespace course::rules::detail
