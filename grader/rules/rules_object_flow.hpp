#pragma once
// The emulated object's control flow: on the CPU emulator a lab file's code is host code,
// so it may branch only to what it names (no call or jump through a pointer, no address of
// a function it does not define), and its C library calls go to the emulator's checked
// versions. Internal to grader_core.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "rules/rules_finding.hpp"
#include "rules/rules_object_dump.hpp"

namespace course::rules::detail {

// Indirect calls and jumps, and addresses of undefined functions taken in code.
std::vector<finding> check_emulated_flow(const std::map<std::string, function_code>& code,
                                         const std::vector<nm_symbol>& nm);

// The C library functions a lab object may call on the emulator, and the emulator's
// checked version each call is renamed to (common/emu/libc_shims.cpp).
const std::vector<std::pair<std::string, std::string>>& emulated_libc_shims();

// objcopy's arguments that make an emulated lab object ready to link, from its
// `readelf -SW` text: its plain data (.bss, .data) moves to `emu_static` and
// `emu_static_data`, and its functions' static locals (gcc keeps a static local of a
// template instance out of the `emu_shared` section its __shared__ asks for) to `emu_local`
// and `emu_local_data` (data_section), where kernel code may access them as it may
// `emu_shared` (access_check.hpp). For a student's object (`ns` its namespace,
// `nm` the `nm -P` text, `checked_libc`): its C library calls go to the emulator's checked
// versions, and its weak copies of other namespaces' templates get names of their own.
// The course's own objects pass an empty `ns` and `nm`.
// The section a lab object's data moves to: zero-filled or initialised, a function's static
// local (one per block) or not (one per grid).
std::string data_section(bool zeroed, bool local);

std::vector<std::string> emulated_object_edits(const std::string& sections, const std::string& nm,
                                               const std::string& ns, bool checked_libc);

}  // namespace course::rules::detail
