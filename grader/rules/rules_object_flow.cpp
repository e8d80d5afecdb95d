#include "rules/rules_object_flow.hpp"

#include <cstdlib>
#include <set>

#include "rules/rules_mangled.hpp"
#include "rules/rules_object_allowlists.hpp"
#include "rules/rules_text.hpp"

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

// The largest stack frame a lab function may make: the emulator's threads have 64 KiB.
constexpr unsigned long long max_frame = 16 * 1024;

// "" when the instruction leaves %rsp alone or moves it as a frame of fixed size does:
// push, pop, call and ret; sub or add of a constant up to max_frame; an alignment (and with
// a small negative constant); the epilogue's restore from the frame pointer (mov %rbp or lea
// from it, leave). Else what it does, for the message.
std::string stack_pointer_problem(const std::string& op, const std::string& text) {
    const auto w = words(text);
    if (w.size() < 2) return "";
    const std::string operands = text.substr(text.find(w[1]));
    const auto comma = operands.rfind(',');
    std::string dest = comma == std::string::npos ? operands : operands.substr(comma + 1);
    dest = words(dest).empty() ? "" : words(dest)[0];
    if (dest != "%rsp" && dest != "%esp" && dest != "%sp") return "";
    const std::string src = comma == std::string::npos ? "" : operands.substr(0, comma);
    const auto constant = [&](unsigned long long& value) {
        if (src.empty() || src[0] != '$') return false;
        value = std::strtoull(src.c_str() + 1, nullptr, 0);
        return true;
    };
    unsigned long long v = 0;
    if ((starts_with(op, "sub") || starts_with(op, "add")) && constant(v)) {
        if (starts_with(op, "add") && v > (1ull << 63)) v = 0 - v;  // add of a negative constant
        if (v <= max_frame) return "";
        return "makes a stack frame of " + std::to_string(v) + " bytes: the emulator's threads have 64 KiB of stack; "
               "keep large arrays in __shared__ or device memory";
    }
    if (starts_with(op, "and") && constant(v) && v >= ~0xfffull) return "";
    if ((starts_with(op, "mov") && src == "%rbp") || (starts_with(op, "lea") && src.find("(%rbp)") != std::string::npos))
        return "";
    return "moves its stack pointer by an amount known only when it runs (a variable-length array or alloca?): "
           "a lab file's stack frames must have fixed sizes";
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& emulated_libc_shims() {
    static const std::vector<std::pair<std::string, std::string>> pairs = {
        {"memcpy", "course_emu_memcpy"},   {"memmove", "course_emu_memmove"},
        {"memset", "course_emu_memset"},   {"printf", "course_emu_printf"},
        {"__printf_chk", "course_emu___printf_chk"}, {"puts", "course_emu_puts"},
        {"putchar", "course_emu_putchar"}, {"__assert_fail", "course_emu___assert_fail"}};
    return pairs;
}

namespace {

// A data section of the lab file's own: its plain .bss and .data, and the per-variable
// sections gcc makes for the file's function-local statics, inline variables and template
// statics in its namespace (or an anonymous one).
bool own_data(const std::string& section, const std::string& kind, const std::string& ns) {
    if (section == kind) return true;
    const std::string rest = section.size() > kind.size() + 1 ? section.substr(kind.size() + 1) : "";
    if (section.compare(0, kind.size() + 1, kind + ".") != 0) return false;
    const std::string mangled_ns = "N" + std::to_string(ns.size()) + ns;
    for (const char* lead : {"_Z", "_ZZ"}) {
        if (starts_with(rest, lead + mangled_ns) || starts_with(rest, std::string(lead) + "N12_GLOBAL__N_1")) return true;
    }
    return ns.empty() && starts_with(rest, "_ZZ");
}

const std::string& kind_of(bool zeroed) {
    static const std::string bss = ".bss", data = ".data";
    return zeroed ? bss : data;
}

}  // namespace

std::string data_section(bool zeroed, bool local) {
    if (local) return zeroed ? "emu_local" : "emu_local_data";
    return zeroed ? "emu_static" : "emu_static_data";
}

std::vector<std::string> emulated_object_edits(const std::string& sections, const std::string& nm,
                                               const std::string& ns, bool checked_libc) {
    std::vector<std::string> args;
    std::set<std::string> seen;
    for (const auto& sec : parse_sections(sections)) {
        // Zero-filled and initialised data stay apart: the linker makes one output section of
        // a name only for input sections of one type.
        const bool zeroed = own_data(sec.name, ".bss", ns);
        const bool initialised = own_data(sec.name, ".data", ns);
        if (!(zeroed || initialised) || !seen.insert(sec.name).second) continue;
        // A function's static locals (a template instance's __shared__ arrays among them) are
        // one per block, like emu_shared; the rest (__device__ variables) one per grid, which
        // the emulator shares between the processes that run a launch's blocks
        // (common/emu/lab_data.ld, block_pool.hpp).
        const bool local = sec.name.compare(kind_of(zeroed).size(), 4, "._ZZ") == 0;
        args.push_back("--rename-section");
        args.push_back(sec.name + "=" + data_section(zeroed, local));
    }
    if (checked_libc) {
        for (const auto& [name, shim] : emulated_libc_shims()) {
            args.push_back("--redefine-sym");
            args.push_back(name + "=" + shim);
        }
    }
    // The file's copies of templates and inline functions of other namespaces (std, emu,
    // cooperative_groups): compiled with its instrumentation and its own macros and
    // specialisations, they must serve its own code only, never the course's, which would
    // otherwise link to whichever copy comes first. Renamed, they are the file's alone.
    for (const auto& sym : parse_nm(nm)) {
        const bool weak = weak_type(sym.type) || sym.type == 'u';
        if (!weak || ns.empty() || symbol_scope(sym.name) == ns) continue;
        args.push_back("--redefine-sym");
        args.push_back(sym.name + "=" + sym.name + ".lab_file");
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
            // The stack pointer moved by what the frame does not know when it is compiled (a
            // variable-length array, alloca) or by a large frame: either could step past the
            // end of the thread's stack, where pushes and spills are never checked.
            const std::string rsp_problem = stack_pointer_problem(op, ins.text);
            if (!rsp_problem.empty())
                add("kernels.cu " + rsp_problem + " (in " + demangle(name) + ")");
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
