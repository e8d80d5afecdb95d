#include "core/tool_output.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

namespace course {

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// Blanks comments, and string and character literals too when `strings`, keeping line
// breaks. Raw strings (R"x(...)x") and escapes are understood; a ' after a letter or digit
// is a digit separator (1'000), not a character literal.
std::string blank_source(const std::string& src, bool strings) {
    std::string out = src;
    auto blank = [&](std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to && i < out.size(); ++i)
            if (out[i] != '\n') out[i] = ' ';
    };
    std::size_t i = 0;
    while (i < src.size()) {
        const char c = src[i];
        const char next = i + 1 < src.size() ? src[i + 1] : '\0';
        if (c == '/' && next == '/') {
            const std::size_t end = src.find('\n', i);
            blank(i, end == std::string::npos ? src.size() : end);
            i = end == std::string::npos ? src.size() : end;
        } else if (c == '/' && next == '*') {
            const std::size_t end = src.find("*/", i + 2);
            const std::size_t stop = end == std::string::npos ? src.size() : end + 2;
            blank(i, stop);
            i = stop;
        } else if (c == '"' && i > 0 && src[i - 1] == 'R') {
            const std::size_t open = src.find('(', i);
            const std::string close = ")" + src.substr(i + 1, open == std::string::npos ? 0 : open - i - 1) + "\"";
            const std::size_t end = open == std::string::npos ? std::string::npos : src.find(close, open);
            const std::size_t stop = end == std::string::npos ? src.size() : end + close.size();
            if (strings) blank(i + 1, stop - 1);
            i = stop;
        } else if (c == '"' || (c == '\'' && !(i > 0 && std::isalnum(static_cast<unsigned char>(src[i - 1]))))) {
            std::size_t j = i + 1;
            while (j < src.size() && src[j] != c && src[j] != '\n') j += src[j] == '\\' ? 2 : 1;
            if (strings) blank(i + 1, std::min(j, src.size()));
            i = j + 1;
        } else {
            ++i;
        }
    }
    return out;
}

std::string trimmed(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    const auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The symbol of one `nm -C` line: "0000000000000000 T name" or "                 U name".
std::string nm_symbol(const std::string& line) {
    std::istringstream in(line);
    std::string first, type;
    in >> first;
    if (first.size() > 1) in >> type;  // first was the address
    std::string rest;
    std::getline(in, rest);
    return trimmed(rest);
}

}  // namespace

std::string blank_comments_and_strings(const std::string& source) { return blank_source(source, true); }

std::vector<std::string> forbidden_library_uses(const std::string& source, const std::string& nm_output,
                                                const std::vector<library_rule>& rules) {
    struct compiled {
        const library_rule* rule;
        std::optional<std::regex> include, code, symbol;
    };
    std::vector<compiled> compiled_rules;
    for (const auto& r : rules) {
        compiled c{&r, {}, {}, {}};
        if (!r.include.empty()) c.include.emplace(r.include);
        if (!r.code.empty()) c.code.emplace(r.code);
        if (!r.symbol.empty()) c.symbol.emplace(r.symbol);
        compiled_rules.push_back(std::move(c));
    }
    // Header names in the preprocessor lines (#include, and #define of a header name),
    // read with comments blanked; the code with strings blanked too.
    static const std::regex header_name(R"([<"]([^<>"]+)[>"])");
    const auto raw = lines_of(source);
    const auto directives = lines_of(blank_source(source, false));
    const auto code = lines_of(blank_source(source, true));
    std::vector<std::string> found;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        const std::string directive = i < directives.size() ? trimmed(directives[i]) : "";
        const std::string text = i < code.size() ? code[i] : "";
        for (const auto& c : compiled_rules) {
            bool hit = false;
            if (c.include && !directive.empty() && directive[0] == '#') {
                for (std::sregex_iterator m(directive.begin(), directive.end(), header_name), e; m != e && !hit; ++m)
                    hit = std::regex_search((*m)[1].str(), *c.include);
            }
            if (!hit && c.code) hit = std::regex_search(text, *c.code);
            if (hit) found.push_back(c.rule->name + ": line " + std::to_string(i + 1) + ": " + trimmed(raw[i]));
        }
    }
    int symbols = 0;
    for (const auto& line : lines_of(nm_output)) {
        const std::string sym = nm_symbol(line);
        for (const auto& c : compiled_rules) {
            if (c.symbol && std::regex_search(sym, *c.symbol) && symbols < 8) {
                found.push_back(c.rule->name + ": symbol " + sym);
                ++symbols;
                break;
            }
        }
    }
    return found;
}

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

racecheck_result parse_racecheck(const std::string& output, const std::vector<std::string>& kernels) {
    racecheck_result r;
    static const std::regex summary(
        R"(RACECHECK SUMMARY:\s*(\d+)\s+hazards?\s+displayed(\s*\((\d+)\s+errors?,\s*(\d+)\s+warnings?\))?)");
    static const std::regex count(R"(\[(\d+)\s+hazards?\])");
    std::vector<std::string> report;
    auto close = [&] {
        if (report.empty()) return;
        long long hazards = 0;
        std::string all;
        for (const auto& l : report) {
            all += l + "\n";
            for (std::sregex_iterator m(l.begin(), l.end(), count), e; m != e; ++m) hazards += std::stoll((*m)[1]);
        }
        if (hazards == 0) hazards = 1;
        // "Warning: ... in block (0,0,0) :" reads better in a sentence without its colon.
        std::string headline = report.front();
        while (!headline.empty() && (headline.back() == ':' || headline.back() == ' ')) headline.pop_back();
        bool attributed = false;
        for (const auto& k : kernels) {
            if (all.find(k) == std::string::npos) continue;
            auto& h = r.by_kernel[k];
            if (h.reports++ == 0) h.first = headline;
            h.hazards += hazards;
            attributed = true;
        }
        if (!attributed && r.unattributed++ == 0) r.first_unattributed = headline;
        report.clear();
    };
    for (const auto& line : lines_of(output)) {
        std::smatch m;
        if (std::regex_search(line, m, summary)) {
            close();
            r.parsed = true;
            r.displayed = std::stoi(m[1]);
            r.found = m[2].matched ? std::stoll(m[3]) + std::stoll(m[4]) : r.displayed;
            continue;
        }
        if (line.rfind("=========", 0) != 0) continue;  // the worker's own output
        const std::string text = line.substr(9);
        if (text.find("hazard detected") != std::string::npos || text.find("Race reported") != std::string::npos) {
            close();
            report.push_back(trimmed(text));
        } else if (!report.empty() && !text.empty() && (text[0] == ' ' || text[0] == '\t') && !trimmed(text).empty()) {
            report.push_back(trimmed(text));
        } else {
            close();
        }
    }
    close();
    return r;
}

sanitizer_summary parse_sanitizer(const std::string& output) {
    sanitizer_summary s;
    static const std::regex errors_re(R"(ERROR SUMMARY:\s*(\d+)\s+error)");
    static const std::regex race_re(R"(RACECHECK SUMMARY:\s*\d+\s+hazards? displayed\s*\((\d+)\s+errors?,\s*(\d+)\s+warnings?\))");
    for (const auto& line : lines_of(output)) {
        std::smatch m;
        if (std::regex_search(line, m, race_re)) {
            s.parsed = true;
            s.errors = std::stoi(m[1]);
            s.warnings = std::stoi(m[2]);
        } else if (std::regex_search(line, m, errors_re)) {
            s.parsed = true;
            s.errors = std::stoi(m[1]);
        } else if ((line.find("========= Invalid") != std::string::npos ||
                    line.find("========= Error") != std::string::npos ||
                    line.find("========= Warning") != std::string::npos) &&
                   s.findings.size() < 5) {
            s.findings.push_back(line.substr(line.find_first_not_of("= ")));
        }
    }
    return s;
}

namespace {

// One CSV record; fields may be quoted and hold commas ("void k(float *, int)", "1,024").
std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> fields;
    std::string cur;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char ch = line[i];
        if (quoted) {
            if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cur += '"';
                ++i;
            } else if (ch == '"') {
                quoted = false;
            } else {
                cur += ch;
            }
        } else if (ch == '"') {
            quoted = true;
        } else if (ch == ',') {
            fields.push_back(cur);
            cur.clear();
        } else if (ch != '\r') {
            cur += ch;
        }
    }
    fields.push_back(cur);
    return fields;
}

}  // namespace

double shared_conflict_factor(double wavefronts, double conflicts) {
    const double ideal = wavefronts - conflicts;
    return ideal > 0 ? wavefronts / ideal : 0.0;
}

ncu_metrics parse_ncu_csv(const std::string& output) {
    ncu_metrics m;
    int id_col = -1, name_col = -1, value_col = -1;
    std::set<std::string> ids;
    for (const auto& line : lines_of(output)) {
        if (line.rfind("==ERROR==", 0) == 0 || line.find("ERR_NVGPUCTRPERM") != std::string::npos) {
            if (m.error.empty()) m.error = line;
            continue;
        }
        if (line.empty() || line[0] != '"') continue;
        const auto f = csv_fields(line);
        if (name_col < 0) {
            for (int i = 0; i < static_cast<int>(f.size()); ++i) {
                if (f[i] == "ID") id_col = i;
                if (f[i] == "Metric Name") name_col = i;
                if (f[i] == "Metric Value") value_col = i;
            }
            continue;
        }
        if (static_cast<int>(f.size()) <= std::max(name_col, value_col)) continue;
        std::string digits;
        for (char ch : f[value_col])
            if (ch != ',') digits += ch;
        try {
            m.sums[f[name_col]] += std::stod(digits);
        } catch (const std::exception&) {
            continue;  // "n/a" and the like
        }
        if (id_col >= 0) ids.insert(f[id_col]);
    }
    m.launches = static_cast<int>(ids.size());
    if (m.sums.empty() && m.error.empty()) m.error = "ncu reported no metrics (was a kernel launched?)";
    if (!m.error.empty()) m.sums.clear();
    return m;
}

}  // namespace course
