#pragma once
// 3. The student's own lines in preprocessed output: the rules that only hold once macros
// are expanded (a macro can spell `asm` or a namespace the source never shows).
#include <functional>
#include <string>
#include <vector>

#include "rules/rules_finding.hpp"

namespace course::rules {

// Follows the line markers of `-E` output and, in the lines `is_source` attributes to the
// student's file, refuses inline assembly, `exit`, computed goto, attributes that place or
// alias code (section, alias, constructor, ...), pragmas outside the allowed ones, and
// namespaces other than `ns`, an anonymous one, or one nested inside those.
std::vector<finding> scan_preprocessed(const std::string& text, const std::function<bool(const std::string&)>& is_source,
                                       const std::string& ns);

}  // namespace course::rules
