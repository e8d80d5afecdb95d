#pragma once
// The rules a student's lab file must follow before, while and after it is compiled
// (grader/guard/, course_cc_guard). Pure functions on text: the source, a compile command,
// a make rule, preprocessed output, compiler messages, and nm, readelf and objdump output,
// so that the unit tests can feed them literal input. Nothing here runs a process.
//
// The one header users include; each section lives in a file of its own:
//   1. directives of the source text                  rules/rules_source.hpp
//   2. compile commands and dependencies              rules/rules_compile.hpp
//   3. the student's own lines in preprocessed output rules/rules_preprocessed.hpp
//   4. compiler messages                              rules/rules_diagnostics.hpp
//   5. the object                                     rules/rules_object.hpp
// The rules_*.hpp files not listed here (lexer, pragma, text, object_dump,
// object_allowlists) are internal to grader_rules (namespace course::rules::detail).
#include "rules/rules_compile.hpp"
#include "rules/rules_diagnostics.hpp"
#include "rules/rules_finding.hpp"
#include "rules/rules_object.hpp"
#include "rules/rules_preprocessed.hpp"
#include "rules/rules_source.hpp"
