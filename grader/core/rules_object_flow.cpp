#include "core/rules_object_flow.hpp"

#include <set>

#include "core/rules_mangled.hpp"
#include "core/rules_object_allowlists.hpp"
#include "core/rules_text.hpp"

namespace course::rules::detail {

namespace {

// What kernel code may hold the address of: the emulator's built-in variables (threadIdx
// and the like read them) and what the compiler itself refers to.
bool data_symbol(const std::string& name) {
    static const std::set<std::string> names = {"_ZN3emu6detail9g_currentE", "_ZN3emu6detail11g_block_idxE",
                                                "_ZN3emu6detail11g_block_dimE", "_ZN3emu6detail10g_grid_dimE",
                                                "_GLOBAL_OFFSET_TABLE_", "__dso_handle"};
    // <iostream>'s initializer registers std::ios_base::Init's destructor with __cxa_atexit.
    return names.count(name) != 0 || iostream_init_calls().count(name) != 0;
}

bool branch_op(const std::string& op) { return starts_with(op, "call") || starts_with(op, "jmp"); }

}  // namespace

const std::vector<std::pair<std::string, std::string>>& emulated_libc_shims() {
    static const std::vector<std::pair<std::string, std::string>> pairs = {
        {"memcpy", "course_emu_memcpy"},   {"memmove", "course_emu_memmove"},
        {"memset", "course_emu_memset"},   {"printf", "course_emu_printf"},
        {"__printf_chk", "course_emu___printf_chk"}, {"puts", "course_emu_puts"},
        {"putchar", "course_emu_putchar"}, {"__assert_fail", "course_emu___assert_fail"}};
    return pairs;
}

std::vector<std::string> emulated_object_edits(const std::string& sections, bool checked_libc) {
    std::vector<std::string> args;
    std::set<std::string> seen;
    for (const auto& sec : parse_sections(sections)) {
        // Zero-filled and initialised data stay apart: the linker makes one output section of
        // a name only for input sections of one type.
        const bool zeroed = sec.name == ".bss" || starts_with(sec.name, ".bss._ZZ");
        const bool initialised = sec.name == ".data" || starts_with(sec.name, ".data._ZZ");
        if (!(zeroed || initialised) || !seen.insert(sec.name).second) continue;
        args.push_back("--rename-section");
        args.push_back(sec.name + (zeroed ? "=emu_static" : "=emu_static_data"));
    }
    if (checked_libc) {
        for (const auto& [name, shim] : emulated_libc_shims()) {
            args.push_back("--redefine-sym");
            args.push_back(name + "=" + shim);
        }
    }
    return args;
}

std::vector<finding> check_emulated_flow(const std::map<std::string, function_code>& code,
                                         const std::vector<nm_symbol>& nm) {
    std::vector<finding> found;
    std::set<std::string> undefined;
    for (const auto& s : nm)
        if (undefined_type(s.type)) undefined.insert(s.name);
    std::set<std::string> said;
    const auto add = [&](const std::string& message) {
        if (said.insert(message).second) found.push_back({0, message});
    };
    for (const auto& [name, fn] : code) {
        for (const auto& ins : fn.code) {
            auto w = words(ins.text);
            while (!w.empty() && (w[0] == "notrack" || w[0] == "bnd" || starts_with(w[0], "rex"))) w.erase(w.begin());
            const std::string op = w.empty() ? "" : w[0];
            if (branch_op(op) && ins.text.find('*') != std::string::npos)
                add("kernels.cu calls or jumps through a pointer (in " + demangle(name) +
                    "): the emulator cannot check where such a call lands; call functions by name");
            if (branch_op(op)) continue;
            // A store at or above the frame pointer: onto the saved frame pointer, the return
            // address or the caller's frame (kernel code has frame pointers, and no argument
            // of the course's kernels is passed on the stack).
            const std::string dest = memory_destination(ins.text);
            if (!dest.empty() && dest.find("(%rbp)") != std::string::npos && dest[0] != '-')
                add("kernels.cu writes above its own stack frame (in " + demangle(name) +
                    "): onto a saved frame pointer or return address; a local array indexed past its end?");
            for (const auto& r : ins.relocs) {
                if (undefined.count(r) != 0 && !data_symbol(r))
                    add("kernels.cu takes the address of `" + demangle(r) + "` (in " + demangle(name) +
                        "): kernels may call it, not hold its address");
            }
        }
    }
    return found;
}

}  // namespace course::rules::detail
