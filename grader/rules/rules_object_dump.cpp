#include "rules/rules_object_dump.hpp"

#include <cctype>
#include <cstdlib>

#include "rules/rules_text.hpp"

namespace course::rules::detail {

namespace {

bool parse_hex(const std::string& s, unsigned long long& value) {
    if (s.empty()) return false;
    char* end = nullptr;
    value = std::strtoull(s.c_str(), &end, 16);
    return end != nullptr && *end == '\0';
}

}  // namespace

// `nm -P`: "name type [value [size]]". A line that does not parse is kept as type '?',
// which no rule allows: the guard refuses what it cannot read.
std::vector<nm_symbol> parse_nm(const std::string& text) {
    std::vector<nm_symbol> out;
    for (const auto& line : lines_of(text)) {
        const auto w = words(line);
        if (w.empty()) continue;
        if (w.size() < 2 || w.size() > 4 || w[1].size() != 1) {
            out.push_back({line, '?'});
            continue;
        }
        out.push_back({w[0], w[1][0]});
    }
    return out;
}

// `readelf -SW`: "[Nr] Name Type Address Off Size ...".
std::vector<section_info> parse_sections(const std::string& text) {
    std::vector<section_info> out;
    for (const auto& line : lines_of(text)) {
        const auto open = line.find('[');
        const auto close = line.find(']');
        if (open == std::string::npos || close == std::string::npos || close < open) continue;
        const std::string nr = line.substr(open + 1, close - open - 1);
        if (nr.find_first_not_of(" 0123456789") != std::string::npos || words(nr).empty()) continue;
        const auto w = words(line.substr(close + 1));
        if (w.size() < 5) continue;  // section 0 has no name
        unsigned long long size = 0;
        if (!parse_hex(w[4], size)) continue;
        out.push_back({std::atoi(nr.c_str()), w[0], w[1], size});
    }
    return out;
}

// `readelf -rW`: relocation section name -> its entries.
std::map<std::string, std::vector<relocation>> parse_relocations(const std::string& text) {
    std::map<std::string, std::vector<relocation>> out;
    std::vector<relocation>* current = nullptr;
    for (const auto& line : lines_of(text)) {
        const std::string head = "Relocation section '";
        if (line.compare(0, head.size(), head) == 0) {
            const auto end = line.find('\'', head.size());
            current = &out[line.substr(head.size(), end - head.size())];
            continue;
        }
        const auto w = words(line);
        if (current == nullptr || w.size() < 4) continue;
        relocation r;
        if (!parse_hex(w[0], r.offset)) continue;
        if (w.size() >= 7 && (w[5] == "+" || w[5] == "-")) {
            r.symbol = w[4];
            unsigned long long a = 0;
            parse_hex(w[6], a);
            r.addend = w[5] == "-" ? -static_cast<long long>(a) : static_cast<long long>(a);
        } else if (w.size() == 5) {
            r.symbol = w[4];
        }
        current->push_back(r);
    }
    return out;
}

// `readelf -sW`: "Num: Value Size Type Bind Vis Ndx Name".
std::vector<elf_symbol> parse_symbols(const std::string& text) {
    std::vector<elf_symbol> out;
    for (const auto& line : lines_of(text)) {
        const auto w = words(line);
        if (w.size() < 8 || w[0].back() != ':') continue;
        elf_symbol s;
        if (!parse_hex(w[1], s.value)) continue;
        s.type = w[3];
        s.ndx = w[6];
        s.name = w[7];
        out.push_back(s);
    }
    return out;
}

// `objdump -dr --no-show-raw-insn`: function name -> its instructions with their relocations.
std::map<std::string, function_code> parse_disassembly(const std::string& text) {
    std::map<std::string, function_code> out;
    function_code* current = nullptr;
    std::string section;
    for (const auto& line : lines_of(text)) {
        const std::string head = "Disassembly of section ";
        if (line.compare(0, head.size(), head) == 0) {
            section = line.substr(head.size(), line.size() - head.size() - (line.back() == ':' ? 1 : 0));
            current = nullptr;
            continue;
        }
        if (!line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) && line.back() == ':') {
            const auto lt = line.find(" <");
            if (lt != std::string::npos && line.size() >= lt + 4) {
                current = &out[line.substr(lt + 2, line.size() - lt - 4)];
                current->section = section;
            }
            continue;
        }
        if (current == nullptr) continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        const std::string addr = words(line.substr(0, colon)).empty() ? "" : words(line.substr(0, colon))[0];
        unsigned long long ignored = 0;
        if (!parse_hex(addr, ignored)) continue;
        std::string rest = line.substr(colon + 1);
        const auto w = words(rest);
        if (w.empty()) continue;
        if (w[0].compare(0, 2, "R_") == 0) {
            // A relocation of the previous instruction: "R_X86_64_PLT32\tsymbol-0x4".
            if (current->code.empty() || w.size() < 2) continue;
            std::string target = w[1];
            const auto cut = target.find_first_of("+-", 1);
            if (cut != std::string::npos) target = target.substr(0, cut);
            current->code.back().relocs.push_back(target);
            continue;
        }
        const auto start = rest.find_first_not_of(" \t");
        current->code.push_back({rest.substr(start), {}});
    }
    return out;
}

std::string memory_destination(const std::string& text) {
    const auto w = words(text);
    if (w.size() < 2) return "";
    const std::string& op = w[0];
    for (const char* reader : {"cmp", "test", "push", "call", "jmp", "nop", "lea", "bt", "ucomis", "comis"}) {
        if (starts_with(op, reader)) return "";
    }
    if (op[0] == 'j') return "";
    const std::string operands = text.substr(text.find(w[1]));
    int depth = 0;
    std::size_t last = 0;
    for (std::size_t k = 0; k < operands.size(); ++k) {
        if (operands[k] == '(') ++depth;
        if (operands[k] == ')') --depth;
        if (operands[k] == ',' && depth == 0) last = k + 1;
    }
    std::string dest = operands.substr(last);
    const auto comment = dest.find('#');
    if (comment != std::string::npos) dest = dest.substr(0, comment);
    dest = words(dest).empty() ? "" : words(dest)[0];
    if (dest.empty() || dest[0] == '%' || dest[0] == '$') return "";
    return dest;
}

}  // namespace course::rules::detail
