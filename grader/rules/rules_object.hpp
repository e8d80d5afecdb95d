#pragma once
// 5. The object: what the compiled kernels.cu may define and call, read from nm, readelf and
// objdump output.
#include <string>
#include <vector>

#include "rules/rules_finding.hpp"
#include "rules/rules_mangled.hpp"

namespace course::rules {

enum class backend { gpu, emulated };

// The text of `nm -P`, `readelf -SW`, `readelf -rW`, `readelf -sW` and
// `objdump -dr --no-show-raw-insn` on one object.
struct object_dump {
    std::string nm;
    std::string sections;
    std::string relocations;
    std::string symbols;
    std::string disassembly;
};

// Defined symbols outside the namespace, calls of anything but the backend's allowlist,
// constructors and initializers, and system-call instructions.
std::vector<finding> check_object(const object_dump& dump, backend b, const std::string& ns);

}  // namespace course::rules
