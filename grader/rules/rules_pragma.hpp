#pragma once
// Which pragmas a lab file may use. Shared by the directive scan of the source and the scan
// of preprocessed output, where `_Pragma` and macros have turned into `#pragma` lines.
// Internal to grader_core.
#include <string>
#include <vector>

#include "rules/rules_lexer.hpp"

namespace course::rules::detail {

// Empty when the pragma (its tokens after `pragma`) is allowed, else what to call it.
std::string disallowed_pragma(const std::vector<token>& toks);
std::string pragma_message(const std::string& name);

}  // namespace course::rules::detail
