#pragma once
// The emulated object's control flow: on the CPU emulator a lab file's code is host code,
// so it may branch only to what it names (no call or jump through a pointer, no address of
// a function it does not define), and its C library calls go to the emulator's checked
// versions. Internal to grader_core.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/rules_finding.hpp"
#include "core/rules_object_dump.hpp"

namespace course::rules::detail {

// Indirect calls and jumps, and addresses of undefined functions taken in code.
std::vector<finding> check_emulated_flow(const std::map<std::string, function_code>& code,
                                         const std::vector<nm_symbol>& nm);

// The C library functions a lab object may call on the emulator, and the emulator's
// checked version each call is renamed to (common/emu/libc_shims.cpp).
const std::vector<std::pair<std::string, std::string>>& emulated_libc_shims();

}  // namespace course::rules::detail
