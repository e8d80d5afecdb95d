#include "rules/rules_object.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "rules/rules_object_allowlists.hpp"
#include "rules/rules_object_flow.hpp"
#include "rules/rules_object_dump.hpp"
#include "rules/rules_text.hpp"

namespace course::rules {

using detail::emu_call_allowed;
using detail::function_code;
using detail::gpu_calls;
using detail::iostream_init_calls;
using detail::is_kernel_stub;
using detail::nvtx_loader_calls;
using detail::parse_disassembly;
using detail::parse_nm;
using detail::parse_relocations;
using detail::parse_sections;
using detail::parse_symbols;
using detail::starts_with;
using detail::undefined_type;
using detail::weak_scope_allowed;
using detail::weak_type;
using detail::words;

namespace {

const char* const constructor_message =
    "kernels.cu has a constructor or initializer of its own: lab files may hold no host code that runs by itself";

// Whether an instruction (AT&T syntax) may write memory other than the stack: its last
// operand is memory that is not addressed from %rsp or %rbp.
bool writes_memory(const std::string& text) {
    const std::string dest = detail::memory_destination(text);
    return !dest.empty() && dest.find("(%rsp)") == std::string::npos && dest.find("(%rbp)") == std::string::npos;
}

// Verifies one .init_array entry that is not nvcc's registration: it must be libstdc++'s
// <iostream> initializer (construct std::ios_base::Init, register its destructor), which
// a header may bring; anything more (a call, a write to a global) is the file's own.
bool is_iostream_initializer(const std::string& function, const std::map<std::string, function_code>& code) {
    static const std::set<std::string> allowed = {"_ZNSt8ios_base4InitC1Ev", "_ZNSt8ios_base4InitD1Ev", "__cxa_atexit",
                                                  "__dso_handle", "_ZStL8__ioinit", ".bss"};
    const std::string helper = "_Z41__static_initialization_and_destruction_0ii";  // g++ -O0
    std::vector<std::string> todo = {function};
    std::set<std::string> seen;
    std::size_t instructions = 0;
    bool constructs = false;
    while (!todo.empty()) {
        const std::string f = todo.back();
        todo.pop_back();
        if (!seen.insert(f).second) continue;
        const auto it = code.find(f);
        if (it == code.end()) return false;
        for (const auto& ins : it->second.code) {
            ++instructions;
            const auto w = words(ins.text);
            const std::string op = w.empty() ? "" : w[0];
            const bool branch = starts_with(op, "call") || starts_with(op, "jmp") || (op.size() > 1 && op[0] == 'j');
            if (branch && ins.text.find('*') != std::string::npos) return false;  // an indirect call or jump
            if (writes_memory(ins.text)) return false;
            if (branch) {
                // A direct call of another local function: "call 1a0 <name>" (not "<f+0x10>").
                const auto lt = ins.text.find('<');
                const auto gt = ins.text.rfind('>');
                if (lt != std::string::npos && gt != std::string::npos && gt > lt) {
                    const std::string target = ins.text.substr(lt + 1, gt - lt - 1);
                    if (target.find('+') == std::string::npos && target != f) {
                        if (target != helper) return false;
                        todo.push_back(target);
                    }
                }
            }
            for (const auto& r : ins.relocs) {
                if (r == "_ZNSt8ios_base4InitC1Ev") constructs = true;
                if (allowed.count(r) == 0 && r != helper) return false;
            }
        }
    }
    return constructs && instructions <= 40;
}

// The module constructor gcc's -fsanitize=thread adds to an emulated lab object (the
// emulator's memory tracing, common/emu/trace.hpp), listed in .init_array.00099: it only
// calls __tsan_init, which the emulator defines as nothing. g++ -O3 makes it
// `jmp __tsan_init`; -O0 `push %rbp; mov %rsp,%rbp; call __tsan_init; pop %rbp; ret`.
// Anything else in it (another call, a store, a second call) is the file's own code.
bool is_tsan_initializer(const std::string& function, const std::map<std::string, function_code>& code) {
    const auto it = code.find(function);
    if (it == code.end() || it->second.code.size() > 8) return false;
    int calls = 0;
    for (const auto& ins : it->second.code) {
        const auto w = words(ins.text);
        const std::string op = w.empty() ? "" : w[0];
        const std::string args = w.size() > 1 ? w[1] : "";
        if (op == "call" || op == "jmp") {
            if (ins.relocs != std::vector<std::string>{"__tsan_init"} || ins.text.find('*') != std::string::npos)
                return false;
            ++calls;
            continue;
        }
        if (!ins.relocs.empty()) return false;
        const bool frame = (op == "push" && args == "%rbp") || (op == "pop" && args == "%rbp") ||
                           (op == "mov" && args == "%rsp,%rbp") || (op == "sub" && args == "$0x8,%rsp") ||
                           (op == "add" && args == "$0x8,%rsp");
        if (!(frame || op == "ret" || op == "endbr64" || starts_with(op, "nop"))) return false;
    }
    return calls == 1;
}

}  // namespace

std::vector<finding> check_object(const object_dump& dump, backend b, const std::string& ns) {
    std::vector<finding> found;
    auto add = [&](const std::string& message) {
        for (const auto& f : found) {
            if (f.message == message) return;
        }
        found.push_back({0, message});
    };
    const auto sections = parse_sections(dump.sections);
    const auto relocations = parse_relocations(dump.relocations);
    const auto symbols = parse_symbols(dump.symbols);
    const auto code = parse_disassembly(dump.disassembly);

    // Constructors and initializers: only nvcc's registration (GPU) and <iostream>'s.
    for (const auto& s : sections) {
        const bool init_like = starts_with(s.name, ".init_array") || starts_with(s.name, ".fini_array") ||
                               starts_with(s.name, ".preinit_array") || starts_with(s.name, ".ctors") ||
                               starts_with(s.name, ".dtors") || s.name == ".init" || s.name == ".fini" ||
                               s.type == "INIT_ARRAY" || s.type == "FINI_ARRAY" || s.type == "PREINIT_ARRAY";
        if (!init_like) continue;
        // gcc's sanitizer constructors run at priority 99: .init_array.00099.
        const bool tsan_section = b == backend::emulated && s.name == ".init_array.00099";
        if ((s.name != ".init_array" && !tsan_section) || s.type != "INIT_ARRAY" || s.size % 8 != 0 ||
            s.size > (tsan_section ? 8 : 16)) {
            add(constructor_message);
            continue;
        }
        const auto rel = relocations.find(".rela" + s.name);
        int registrations = 0, iostreams = 0;
        for (unsigned long long offset = 0; offset < s.size; offset += 8) {
            std::string function;
            if (rel != relocations.end()) {
                for (const auto& r : rel->second) {
                    if (r.offset != offset) continue;
                    function = r.symbol;
                    // A section and an offset in it: the function defined there.
                    for (const auto& sec : sections) {
                        if (sec.name != r.symbol) continue;
                        for (const auto& sym : symbols) {
                            if (sym.type == "FUNC" && sym.ndx == std::to_string(sec.index) &&
                                static_cast<long long>(sym.value) == r.addend)
                                function = sym.name;
                        }
                    }
                }
            }
            if (b == backend::gpu && function == "_ZL24__sti____cudaRegisterAllv") {
                ++registrations;
            } else if (tsan_section) {
                if (!is_tsan_initializer(function, code)) registrations = 99;
            } else if (is_iostream_initializer(function, code)) {
                ++iostreams;
            } else {
                registrations = 99;
            }
        }
        if (registrations > 1 || iostreams > 1) add(constructor_message);
    }

    // Symbols.
    for (const auto& sym : parse_nm(dump.nm)) {
        const char t = sym.type;
        if (t == 'i') {
            add(constructor_message);  // an indirect function: its resolver runs when the program loads
            continue;
        }
        if (t == '?') {
            add("kernels.cu's object has a symbol the guard cannot read: " + sym.name);
            continue;
        }
        std::string global_name;
        const std::string scope = symbol_scope(sym.name, &global_name);
        if (undefined_type(t)) {
            bool ok = false;
            if (b == backend::gpu) {
                ok = gpu_calls().count(sym.name) != 0 || iostream_init_calls().count(sym.name) != 0 ||
                     sym.name == "_GLOBAL_OFFSET_TABLE_";
                if (!ok && nvtx_loader_calls().count(sym.name) != 0) {
                    // Only NVTX's own functions may look up its injection library: every
                    // use must sit in one of their sections.
                    bool used = false, elsewhere = false;
                    for (const auto& [section, entries] : relocations) {
                        for (const auto& r : entries) {
                            if (r.symbol != sym.name) continue;
                            used = true;
                            if (!starts_with(section, ".rela.text.nvtx")) elsewhere = true;
                        }
                    }
                    ok = used && !elsewhere;
                }
            } else {
                ok = emu_call_allowed(sym.name) || iostream_init_calls().count(sym.name) != 0;
            }
            if (!ok)
                add("kernels.cu calls `" + demangle(sym.name) +
                    "`: kernels may call only device code and the CUDA built-ins");
            continue;
        }
        const bool defined_global = std::isupper(static_cast<unsigned char>(t)) || weak_type(t);
        if (!defined_global) continue;
        bool ok = scope == ns || starts_with(scope, "_GLOBAL__N") || sym.name == "DW.ref.__gxx_personality_v0";
        if (!ok && b == backend::gpu) ok = is_kernel_stub(sym.name, ns);
        if (!ok && weak_type(t)) ok = weak_scope_allowed(b, scope, global_name);
        if (!ok)
            add("kernels.cu defines `" + demangle(sym.name) +
                "` outside namespace LAB_IMPL: a lab file may define only its kernels and helpers");
    }

    // System calls, in any code of the object.
    for (const auto& [name, fn] : code) {
        for (const auto& ins : fn.code) {
            const auto w = words(ins.text);
            if (w.empty()) continue;
            if (w[0] == "syscall" || w[0] == "sysenter" || (w[0] == "int" && w.size() > 1 && w[1] == "$0x80")) {
                add("kernels.cu makes a system call (`" + w[0] + "` in " + demangle(name) +
                    "): lab files may not talk to the operating system");
                break;
            }
        }
    }
    if (b == backend::emulated)
        for (auto& f : detail::check_emulated_flow(code, parse_nm(dump.nm))) add(f.message);
    // Constructors first: they are what runs by itself.
    std::stable_partition(found.begin(), found.end(),
                          [](const finding& f) { return f.message == constructor_message; });
    return found;
}

}  // namespace course::rules
