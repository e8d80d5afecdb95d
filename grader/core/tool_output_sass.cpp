// cuobjdump's SASS and ELF dumps: which functions a kernel reaches, and what they execute.
#include <cxxabi.h>

#include <cstdlib>
#include <regex>
#include <sstream>

#include "rules/rules_text.hpp"
#include "core/tool_output.hpp"

namespace course {

using rules::detail::lines_of;
using rules::detail::trimmed;

namespace {

// "        /*0170*/                   CALL.REL.NOINC 0x1c0 ;   /* 0x... */" -> "CALL.REL.NOINC 0x1c0"
bool sass_instruction(const std::string& line, std::string& text) {
    static const std::regex re(R"(^\s*/\*[0-9a-fA-F]{4,}\*/\s+(.*?)\s*;)");
    std::smatch m;
    if (!std::regex_search(line, m, re)) return false;
    text = m[1].str();
    return true;
}

// The opcode of an instruction, without its predicate: "@!P0 SHFL.DOWN PT, ..." -> "SHFL.DOWN".
std::string opcode_of(const std::string& instruction) {
    std::istringstream in(instruction);
    std::string word;
    in >> word;
    if (!word.empty() && word[0] == '@') in >> word;
    return word;
}

bool has_opcode(const std::string& instruction, const std::string& opcode) {
    const std::string op = opcode_of(instruction);
    return op == opcode || op.rfind(opcode + ".", 0) == 0;
}

}  // namespace

sass_program parse_sass(const std::string& sass) {
    sass_program program;
    sass_function* current = nullptr;
    static const std::regex named_target(R"(`\(([^)\s]+)\))");
    for (const auto& line : lines_of(sass)) {
        const auto f = line.find("Function : ");
        if (f != std::string::npos) {
            current = &program[trimmed(line.substr(f + 11))];
            continue;
        }
        std::string ins;
        if (current == nullptr || !sass_instruction(line, ins)) continue;
        current->instructions.push_back(ins);
        const std::string op = opcode_of(ins);
        if (op.rfind("CALL", 0) != 0 && op.rfind("JCAL", 0) != 0 && op.rfind("CAL.", 0) != 0 && op != "CAL") continue;
        std::smatch m;
        if (std::regex_search(ins, m, named_target)) {
            current->callees.insert(m[1].str());
        } else if (op.find(".ABS") != std::string::npos) {
            current->calls_elsewhere = true;
        }
    }
    return program;
}

void add_relocated_calls(sass_program& program, const std::string& elf_dump) {
    static const std::regex section(R"(^\s*\.section\s+\.rela?\.text\.(\S+))");
    static const std::regex entry(R"(^\s*0x[0-9a-fA-F]+\s+(\S+)\s+R_CUDA_\S+)");
    std::string caller;
    for (const auto& line : lines_of(elf_dump)) {
        std::smatch m;
        if (std::regex_search(line, m, section)) {
            caller = program.count(m[1].str()) ? m[1].str() : "";
        } else if (!caller.empty() && std::regex_search(line, m, entry)) {
            const std::string target = m[1].str();
            if (target != caller && program.count(target)) program[caller].callees.insert(target);
        } else if (!trimmed(line).empty() && trimmed(line)[0] == '.') {
            caller.clear();
        }
    }
}

std::string mangled_prefix(const std::string& ns, const std::string& name) {
    const std::string base = name.substr(0, name.find('<'));
    if (ns.empty()) return "_Z" + std::to_string(base.size()) + base;
    return "_ZN" + std::to_string(ns.size()) + ns + std::to_string(base.size()) + base;
}

std::set<std::string> reachable_functions(const sass_program& program, const std::string& prefix) {
    std::vector<std::string> todo;
    const bool nested = prefix.rfind("_ZN", 0) == 0;
    for (const auto& [name, fn] : program) {
        if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
        // Nested names end with E (then the parameters) or continue with I (template
        // arguments); anything else is a longer name that starts the same way.
        const char after = name[prefix.size()];
        if (!nested || after == 'E' || after == 'I') todo.push_back(name);
    }
    std::set<std::string> seen(todo.begin(), todo.end());
    while (!todo.empty()) {
        const std::string name = todo.back();
        todo.pop_back();
        for (const auto& callee : program.at(name).callees) {
            if (program.count(callee) && seen.insert(callee).second) todo.push_back(callee);
        }
    }
    return seen;
}

sass_search find_in_sass(const sass_program& program, const std::string& prefix, const std::string& opcode,
                         std::vector<std::string>* elsewhere) {
    const auto reachable = reachable_functions(program, prefix);
    if (reachable.empty()) return sass_search::no_such_function;
    bool found = false;
    for (const auto& [name, fn] : program) {
        const bool has = std::any_of(fn.instructions.begin(), fn.instructions.end(),
                                     [&](const std::string& ins) { return has_opcode(ins, opcode); });
        if (!has) continue;
        if (reachable.count(name)) {
            found = true;
        } else if (elsewhere != nullptr) {
            elsewhere->push_back(name);
        }
    }
    return found ? sass_search::found : sass_search::not_found;
}

std::string demangle(const std::string& name) {
    int status = 0;
    char* text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    if (status != 0 || text == nullptr) return name;
    std::string out = text;
    std::free(text);
    return out;
}

}  // namespace course
