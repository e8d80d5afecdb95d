#pragma once
// Readers of the nm, readelf and objdump text in an object_dump: the object check works on
// what they return. Internal to grader_core.
#include <map>
#include <string>
#include <vector>

namespace course::rules::detail {

struct nm_symbol {
    std::string name;
    char type = '?';
};

struct section_info {
    int index = 0;
    std::string name;
    std::string type;
    unsigned long long size = 0;
};

struct relocation {
    unsigned long long offset = 0;
    std::string symbol;
    long long addend = 0;
};

struct elf_symbol {
    unsigned long long value = 0;
    std::string type;
    std::string ndx;
    std::string name;
};

struct instruction {
    std::string text;                 // mnemonic and operands
    std::vector<std::string> relocs;  // symbols of its relocations (without the addend)
};

struct function_code {
    std::string section;
    std::vector<instruction> code;
};

// The memory operand an instruction (AT&T syntax) writes, its last operand: "" when it
// writes no memory (compares, tests, pushes, calls, jumps, nops, lea, register and
// immediate destinations).
std::string memory_destination(const std::string& text);

// `nm -P`: "name type [value [size]]". A line that does not parse is kept as type '?',
// which no rule allows: the guard refuses what it cannot read.
std::vector<nm_symbol> parse_nm(const std::string& text);
// `readelf -SW`: "[Nr] Name Type Address Off Size ...".
std::vector<section_info> parse_sections(const std::string& text);
// `readelf -rW`: relocation section name -> its entries.
std::map<std::string, std::vector<relocation>> parse_relocations(const std::string& text);
// `readelf -sW`: "Num: Value Size Type Bind Vis Ndx Name".
std::vector<elf_symbol> parse_symbols(const std::string& text);
// `objdump -dr --no-show-raw-insn`: function name -> its instructions with their relocations.
std::map<std::string, function_code> parse_disassembly(const std::string& text);

}  // namespace course::rules::detail
