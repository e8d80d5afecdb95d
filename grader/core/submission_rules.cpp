#include "core/submission_rules.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

namespace course::rules {

namespace {

// ---- A C++ lexer, just enough to find directives, tokens and braces ----

struct token {
    enum kind_t { identifier, number, literal, punct } kind = punct;
    std::string text;
    int line = 0;
    bool first = false;   // the first token of its physical line
    std::size_t pos = 0;  // where it starts in that line
};

bool is_ident_start(unsigned char c) { return std::isalpha(c) || c == '_' || c == '$' || c >= 0x80; }
bool is_ident_char(unsigned char c) { return std::isalnum(c) || c == '_' || c == '$' || c >= 0x80; }

// Lexes one physical line at a time and carries what spans lines: a block comment or a
// raw string literal. Ordinary string and character literals end at the line's end, as
// the preprocessor ends them.
class lexer {
public:
    // `lines[i]` is the line of the student's file that char i of `text` came from.
    void feed(const std::string& text, const std::vector<int>& lines, std::vector<token>& out) {
        std::size_t i = 0;
        bool first = true;
        auto emit = [&](token::kind_t kind, std::size_t from, std::size_t to) {
            out.push_back({kind, text.substr(from, to - from), lines[from], first, from});
            first = false;
        };
        while (i < text.size()) {
            if (in_comment_) {
                const auto end = text.find("*/", i);
                if (end == std::string::npos) return;
                in_comment_ = false;
                i = end + 2;
                continue;
            }
            if (raw_delim_) {
                const std::string close = ")" + *raw_delim_ + "\"";
                const auto end = text.find(close, i);
                if (end == std::string::npos) return;  // the literal goes on past this line
                raw_delim_.reset();
                out.push_back({token::literal, "R\"\"", raw_line_, raw_first_, 0});
                first = false;
                i = end + close.size();
                continue;
            }
            const unsigned char c = static_cast<unsigned char>(text[i]);
            if (std::isspace(c)) {
                ++i;
            } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
                return;
            } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
                in_comment_ = true;
                i += 2;
            } else if (is_ident_start(c)) {
                std::size_t j = i;
                while (j < text.size() && is_ident_char(static_cast<unsigned char>(text[j]))) ++j;
                const std::string word = text.substr(i, j - i);
                const bool prefix = word == "u8" || word == "u" || word == "U" || word == "L";
                const bool raw_prefix = word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR";
                if (raw_prefix && j < text.size() && text[j] == '"') {
                    const auto open = text.find('(', j + 1);
                    const std::string delim = open == std::string::npos ? "" : text.substr(j + 1, open - j - 1);
                    if (open != std::string::npos && delim.size() <= 16 &&
                        delim.find_first_of(" ()\\\t\v\f") == std::string::npos) {
                        raw_delim_ = delim;
                        raw_line_ = lines[i];
                        raw_first_ = first;
                        i = open + 1;
                        continue;
                    }
                    // Not a raw string after all (the compiler rejects it): lex the rest plainly.
                }
                if (prefix && j < text.size() && (text[j] == '"' || text[j] == '\'')) {
                    i = quoted(text, i, j, lines, out, first);
                    continue;
                }
                emit(token::identifier, i, j);
                i = j;
            } else if (std::isdigit(c) || (c == '.' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
                std::size_t j = i + 1;
                while (j < text.size()) {
                    const unsigned char d = static_cast<unsigned char>(text[j]);
                    if ((d == '+' || d == '-') && std::strchr("eEpP", text[j - 1]) != nullptr) {
                        ++j;
                    } else if (d == '\'' && j + 1 < text.size() && is_ident_char(static_cast<unsigned char>(text[j + 1]))) {
                        j += 2;  // a digit separator
                    } else if (is_ident_char(d) || d == '.') {
                        ++j;
                    } else {
                        break;
                    }
                }
                emit(token::number, i, j);
                i = j;
            } else if (c == '"' || c == '\'') {
                i = quoted(text, i, i, lines, out, first);
            } else {
                static const char* const multi[] = {"%:%:", "%:", "##", "::", "<%", "%>", "->", "&&", "||"};
                std::size_t len = 1;
                for (const char* m : multi) {
                    if (text.compare(i, std::strlen(m), m) == 0) {
                        len = std::strlen(m);
                        break;
                    }
                }
                token t{token::punct, text.substr(i, len), lines[i], first, i};
                // Digraphs spell the same punctuators; `%:` is `#`.
                if (t.text == "%:") t.text = "#";
                if (t.text == "%:%:") t.text = "##";
                if (t.text == "<%") t.text = "{";
                if (t.text == "%>") t.text = "}";
                out.push_back(t);
                first = false;
                i += len;
            }
        }
    }

    // A directive ends with its line: a raw string left open there is not continued.
    void end_directive() { raw_delim_.reset(); }
    bool in_comment() const { return in_comment_; }
    bool in_raw_string() const { return raw_delim_.has_value(); }
    void reset() {
        in_comment_ = false;
        raw_delim_.reset();
    }

private:
    // A string or character literal starting at `start` (its prefix) with the quote at `q`.
    std::size_t quoted(const std::string& text, std::size_t start, std::size_t q, const std::vector<int>& lines,
                       std::vector<token>& out, bool& first) {
        const char quote = text[q];
        std::size_t j = q + 1;
        while (j < text.size() && text[j] != quote) j += text[j] == '\\' ? 2 : 1;
        j = std::min(j + 1, text.size());
        out.push_back({token::literal, text.substr(start, j - start), lines[start], first, start});
        first = false;
        return j;
    }

    bool in_comment_ = false;
    std::optional<std::string> raw_delim_;
    int raw_line_ = 0;
    bool raw_first_ = false;
};

// The source with line splices removed (backslash, optional blanks, newline: GCC accepts
// the blanks) and every newline spelled '\n', split into physical lines that remember the
// original line of each char.
struct source_line {
    std::string text;
    std::vector<int> lines;
};
std::vector<source_line> spliced_lines(const std::string& src) {
    std::vector<source_line> out(1);
    int line = 1;
    for (std::size_t i = 0; i < src.size(); ++i) {
        char c = src[i];
        if (c == '\r') {
            c = '\n';
            if (i + 1 < src.size() && src[i + 1] == '\n') ++i;
        }
        if (c == '\\') {
            std::size_t j = i + 1;
            while (j < src.size() && (src[j] == ' ' || src[j] == '\t' || src[j] == '\f' || src[j] == '\v')) ++j;
            if (j < src.size() && (src[j] == '\n' || src[j] == '\r')) {
                if (src[j] == '\r' && j + 1 < src.size() && src[j + 1] == '\n') ++j;
                i = j;
                ++line;
                continue;
            }
        }
        if (c == '\n') {
            out.emplace_back();
            ++line;
            continue;
        }
        out.back().text += c;
        out.back().lines.push_back(line);
    }
    return out;
}

bool is(const token& t, const char* text) { return t.text == text; }

std::string strip_underscores(std::string s) {
    if (s.size() > 4 && s.compare(0, 2, "__") == 0 && s.compare(s.size() - 2, 2, "__") == 0) s = s.substr(2, s.size() - 4);
    return s;
}

// ---- Pragmas ----

// What a pragma's unroll count may be made of: a constant expression, never a string.
bool expression_token(const token& t) {
    if (t.kind == token::identifier || t.kind == token::number) return true;
    if (t.kind != token::punct) return false;
    return t.text == "::" || t.text == "&&" || t.text == "||" ||
           (t.text.size() == 1 && std::strchr("()+-*/%<>&|^~!?:=", t.text[0]) != nullptr);
}

// Empty when the pragma (its tokens after `pragma`) is allowed, else what to call it.
std::string disallowed_pragma(const std::vector<token>& toks) {
    auto all_expression = [&](std::size_t from) {
        return std::all_of(toks.begin() + static_cast<std::ptrdiff_t>(from), toks.end(), expression_token);
    };
    if (toks.empty()) return "";
    if (is(toks[0], "unroll") && all_expression(1)) return "";
    if ((is(toks[0], "nounroll") || is(toks[0], "once")) && toks.size() == 1) return "";
    if (is(toks[0], "GCC") && toks.size() >= 2 && is(toks[1], "unroll") && all_expression(2)) return "";
    std::string name = "#pragma " + toks[0].text;
    if ((is(toks[0], "GCC") || is(toks[0], "STDC") || is(toks[0], "clang")) && toks.size() >= 2) name += " " + toks[1].text;
    return name;
}

std::string pragma_message(const std::string& name) {
    return "`" + name + "` is not allowed in lab files (only #pragma unroll, nounroll, once and GCC unroll)";
}

// ---- Header names ----

std::string header_name_problem(const std::string& name) {
    if (name.empty()) return "an empty header name";
    if (name[0] == '/') return "an absolute path";
    if (name.find("..") != std::string::npos) return "`..` in the path";
    for (const char c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && std::strchr("_./+-", c) == nullptr)
            return "a character other than letters, digits and _ . / + -";
    }
    return "";
}

// The text after `include` on a directive line: blanks, same-line comments, a header name
// in quotes or angle brackets, blanks and comments. Empty when it is that, else why not.
std::string include_problem(const std::string& rest) {
    std::size_t i = 0;
    auto skip_blank = [&]() -> bool {
        for (;;) {
            while (i < rest.size() && std::isspace(static_cast<unsigned char>(rest[i]))) ++i;
            if (rest.compare(i, 2, "/*") == 0) {
                const auto end = rest.find("*/", i + 2);
                if (end == std::string::npos) return false;
                i = end + 2;
            } else if (rest.compare(i, 2, "//") == 0) {
                i = rest.size();
            } else {
                return true;
            }
        }
    };
    if (!skip_blank() || i >= rest.size() || (rest[i] != '"' && rest[i] != '<'))
        return "#include must name a header in quotes or angle brackets, not a macro";
    const char close = rest[i] == '"' ? '"' : '>';
    const auto end = rest.find(close, i + 1);
    if (end == std::string::npos) return "#include must name a header in quotes or angle brackets, not a macro";
    const std::string name = rest.substr(i + 1, end - i - 1);
    const std::string why = header_name_problem(name);
    if (!why.empty()) return "#include of " + std::string(1, rest[i]) + name + close + " is not allowed: " + why;
    i = end + 1;
    if (!skip_blank() || i < rest.size()) return "#include has more text after its header name";
    return "";
}

// ---- Paths ----

std::string without_trailing_slash(std::string s) {
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
}

// ---- Object files ----

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

std::vector<std::string> words(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        out.push_back(line);
    }
    return out;
}

bool parse_hex(const std::string& s, unsigned long long& value) {
    if (s.empty()) return false;
    char* end = nullptr;
    value = std::strtoull(s.c_str(), &end, 16);
    return end != nullptr && *end == '\0';
}

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

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// ---- Mangled names ----

// A tiny reader of the Itanium mangling's prefixes: enough to find the first component
// of an entity's scope, never to demangle.
class mangled_reader {
public:
    explicit mangled_reader(const std::string& s) : s_(s) {}

    // The scope of the <encoding> or special name at the current position.
    std::string special_or_encoding(std::string* global_name) {
        if (eat("TV") || eat("TT") || eat("TI") || eat("TS") || eat("TC")) return name(global_name);
        if (eat("Th")) {
            number();
            eat("_");
            return name(global_name);
        }
        if (eat("Tv")) {
            number();
            eat("_");
            number();
            eat("_");
            return name(global_name);
        }
        if (eat("Tc")) {
            for (int k = 0; k < 2; ++k) call_offset();
            return name(global_name);
        }
        if (eat("TH") || eat("TW") || eat("GV") || eat("GR") || eat("GTt") || eat("GTn") || eat("GA")) return name(global_name);
        if (peek() == 'T' || peek() == 'G') return "?";
        return name(global_name);
    }

private:
    char peek() const { return p_ < s_.size() ? s_[p_] : '\0'; }
    bool eat(const char* t) {
        const std::size_t n = std::strlen(t);
        if (s_.compare(p_, n, t) != 0) return false;
        p_ += n;
        return true;
    }
    void number() {
        eat("n");
        while (std::isdigit(static_cast<unsigned char>(peek()))) ++p_;
    }
    void call_offset() {
        if (eat("h")) {
            number();
            eat("_");
        } else if (eat("v")) {
            number();
            eat("_");
            number();
            eat("_");
        }
    }
    // <source-name>: a length and an identifier.
    std::string source_name() {
        std::size_t len = 0;
        const std::size_t start = p_;
        while (std::isdigit(static_cast<unsigned char>(peek()))) len = len * 10 + static_cast<std::size_t>(s_[p_++] - '0');
        if (p_ == start || p_ + len > s_.size()) return "";
        const std::string id = s_.substr(p_, len);
        p_ += len;
        return id;
    }
    // The first component of a <prefix>, or "?".
    std::string first_component() {
        if (eat("St")) return "std";
        if (peek() == 'S' && p_ + 1 < s_.size() && std::strchr("abisod", s_[p_ + 1]) != nullptr) return "std";
        eat("L");
        if (std::isdigit(static_cast<unsigned char>(peek()))) {
            const std::string id = source_name();
            return id.empty() ? "?" : id;
        }
        return "?";
    }
    std::string name(std::string* global_name) {
        if (eat("N")) {
            while (peek() == 'r' || peek() == 'V' || peek() == 'K') ++p_;
            if (peek() == 'R' || peek() == 'O') ++p_;
            return first_component();
        }
        if (eat("Z")) return special_or_encoding(global_name);  // a local entity: its function's scope
        if (eat("St")) return "std";
        if (peek() == 'S' && p_ + 1 < s_.size() && std::strchr("abisod", s_[p_ + 1]) != nullptr) return "std";
        eat("L");
        if (std::isdigit(static_cast<unsigned char>(peek()))) {
            const std::string id = source_name();
            if (id.empty()) return "?";
            if (global_name != nullptr) *global_name = id;
            return "";
        }
        if (std::islower(static_cast<unsigned char>(peek()))) return "";  // an operator: global
        return "?";
    }

    const std::string& s_;
    std::size_t p_ = 2;
};

// ---- Allowlists ----

// nvcc's registration and launch code: the fat binary, the kernels, __device__,
// __constant__ and __managed__ variables, the launch of a kernel through its host stub,
// the guards of its static locals, exception tables, and atexit for the unregistration.
// `exit`: nvcc compiles every __device__ function for the host as a stub that calls it.
const std::set<std::string>& gpu_calls() {
    static const std::set<std::string> names = {
        "__cudaGetKernel", "__cudaLaunchKernel", "__cudaPopCallConfiguration", "__cudaRegisterFatBinary",
        "__cudaRegisterFatBinaryEnd", "__cudaRegisterFunction", "__cudaRegisterVar", "__cudaRegisterManagedVar",
        "__cudaInitModule", "__cudaUnregisterFatBinary", "__cxa_guard_abort", "__cxa_guard_acquire",
        "__cxa_guard_release", "__gxx_personality_v0", "_Unwind_Resume", "atexit", "exit",
        // What a hardened host compiler adds on its own (Ubuntu's GCC: stack protector, PIE).
        "__stack_chk_fail", "_GLOBAL_OFFSET_TABLE_"};
    return names;
}

// The C math functions kernel code may call on the emulator.
const std::set<std::string>& math_calls() {
    static const std::set<std::string> names = [] {
        std::set<std::string> out;
        for (const char* base : {"sqrt", "cbrt", "hypot", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
                                 "pow", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
                                 "asinh", "acosh", "atanh", "fabs", "fmin", "fmax", "fma", "fmod", "remainder",
                                 "floor", "ceil", "round", "trunc", "rint", "nearbyint", "lrint", "lround", "llrint",
                                 "llround", "copysign", "erf", "erfc", "tgamma", "lgamma", "ldexp", "frexp", "modf",
                                 "scalbn", "ilogb", "logb", "nextafter", "sincos", "fdim"}) {
            out.insert(base);
            out.insert(std::string(base) + "f");
        }
        return out;
    }();
    return names;
}

// What the emulator's header (common/emu/cuda_emu.hpp) lets kernel code reach, the C
// library's memory and math functions, printf for a kernel's own debugging output, and
// what g++ emits for guards, exceptions, stack protection and assert.
bool emu_call_allowed(const std::string& mangled) {
    static const std::set<std::string> c_names = {
        "memcpy", "memmove", "memset", "__stack_chk_fail", "_GLOBAL_OFFSET_TABLE_", "__cxa_guard_abort",
        "__cxa_guard_acquire", "__cxa_guard_release", "__gxx_personality_v0", "_Unwind_Resume", "printf",
        "__printf_chk", "puts", "putchar", "__assert_fail"};
    static const std::set<std::string> emu_names = {"emu::detail::warp_op",     "emu::detail::block_barrier",
                                                    "emu::detail::g_current",   "emu::detail::g_block_idx",
                                                    "emu::detail::g_block_dim", "emu::detail::g_grid_dim",
                                                    "emu::activemask"};
    if (c_names.count(mangled) != 0 || math_calls().count(mangled) != 0) return true;
    const std::string d = demangle(mangled);
    const auto paren = d.find('(');
    return emu_names.count(paren == std::string::npos ? d : d.substr(0, paren)) != 0;
}

// libstdc++'s <iostream> gives every translation unit that includes it a static
// std::ios_base::Init object (GCC 12), whatever header pulled it in (CUB does).
const std::set<std::string>& iostream_init_calls() {
    static const std::set<std::string> names = {"_ZNSt8ios_base4InitC1Ev", "_ZNSt8ios_base4InitD1Ev", "__cxa_atexit",
                                                "__dso_handle"};
    return names;
}

// NVTX's loader (CUB includes NVTX): inline functions that find an injection library.
// These calls are allowed only in code of NVTX's own functions (their .text.nvtx* sections).
const std::set<std::string>& nvtx_loader_calls() {
    static const std::set<std::string> names = {"getenv", "dlopen", "dlsym", "dlclose", "sched_yield"};
    return names;
}

bool weak_type(char t) { return t == 'W' || t == 'V' || t == 'u'; }
bool undefined_type(char t) { return t == 'U' || t == 'w' || t == 'v'; }

// Scopes whose template instantiations and inline variables a header library puts in the
// student's object as weak symbols.
bool weak_scope_allowed(backend b, const std::string& scope, const std::string& global_name) {
    static const std::set<std::string> emu_scopes = {"std", "__gnu_cxx", "emu", "cooperative_groups", "cuda",
                                                     // the emulator's vector types (constructors at -O0)
                                                     "dim3", "uint3", "float2", "float4", "int2", "int4", "uint2",
                                                     "uint4", "double2"};
    // Not std:: on the GPU: the worker's own host code instantiates std templates, and a
    // weak definition of the file's could replace the worker's (nothing legitimate needs one).
    static const std::set<std::string> gpu_scopes = {"cooperative_groups", "cuda", "cub", "thrust"};
    // The emulator's built-ins in the global namespace (out of line at -O0).
    static const std::set<std::string> emu_globals = {
        "__ldg", "__ldcg", "__ldcs", "__stcg", "__stcs", "atomicAdd", "atomicSub", "atomicExch", "atomicMin",
        "atomicMax", "atomicCAS", "atomicInc", "atomicDec", "rsqrtf", "__fdividef", "__expf", "__fadd_rn",
        "__fmul_rn", "min", "max", "__threadfence", "__threadfence_block", "make_float2", "make_float4",
        "make_int2", "make_int4", "make_uint2", "make_uint3", "make_uint4", "make_double2"};
    if (b == backend::emu) return emu_scopes.count(scope) != 0 || (scope.empty() && emu_globals.count(global_name) != 0);
    return gpu_scopes.count(scope) != 0 ||
           (scope.empty() && (starts_with(global_name, "nvtx") || starts_with(global_name, "InitializeInjectionNvtx")));
}

// nvcc's host stub of a kernel: _Z<len>__device_stub__ZN<len><namespace>...
bool is_kernel_stub(const std::string& name, const std::string& ns) {
    std::size_t p = 2;
    if (!starts_with(name, "_Z")) return false;
    while (p < name.size() && std::isdigit(static_cast<unsigned char>(name[p]))) ++p;
    const std::string stub = "__device_stub__ZN" + std::to_string(ns.size()) + ns;
    return p > 2 && name.compare(p, stub.size(), stub) == 0;
}

const char* const constructor_message =
    "kernels.cu has a constructor or initializer of its own: lab files may hold no host code that runs by itself";

}  // namespace

// ---- 1. Directives ----

std::vector<finding> scan_directives(const std::string& source) {
    std::vector<finding> found;
    lexer lex;
    bool in_directive = false;
    bool body_allows_hash = false;  // in a function-like #define: `#` may stringize a parameter
    std::vector<token> directive;
    const auto lines = spliced_lines(source);

    const source_line* name_text = nullptr;  // the physical line holding the directive's name
    auto check_directive = [&] {
        // directive[0] is '#'.
        if (directive.size() < 2) return;  // the null directive
        const token& name = directive[1];
        const int line = directive[0].line;
        if (name.kind == token::number) {
            found.push_back({line, "line markers (`# " + name.text + "`) are not allowed in lab files"});
            return;
        }
        static const std::set<std::string> plain = {"define", "undef", "if",      "ifdef",   "ifndef",  "elif",
                                                    "else",   "endif", "elifdef", "elifndef", "error", "warning"};
        if (plain.count(name.text) != 0) return;
        if (name.text == "include") {
            // The raw text after `include` on its physical line: a header name is not lexed
            // as other tokens are (no escapes in "...", no tokens in <...>).
            const std::string why = include_problem(name_text->text.substr(name.pos + name.text.size()));
            if (!why.empty()) found.push_back({line, why});
            return;
        }
        if (name.text == "pragma") {
            const std::vector<token> rest(directive.begin() + 2, directive.end());
            const std::string bad = disallowed_pragma(rest);
            if (!bad.empty()) found.push_back({line, pragma_message(bad)});
            return;
        }
        found.push_back({line, "`#" + name.text + "` is not allowed in lab files"});
    };

    for (const auto& text : lines) {
        std::vector<token> toks;
        const bool continuing = in_directive;  // a block comment carried the directive over
        lex.feed(text.text, text.lines, toks);
        for (std::size_t k = 0; k < toks.size(); ++k) {
            const token& t = toks[k];
            if (!continuing && t.first && is(t, "#")) {
                in_directive = true;
                directive.clear();
                body_allows_hash = false;
            }
            if (in_directive) {
                directive.push_back(t);
                if (directive.size() == 2) name_text = &text;
                // In a #define body, `#` only stringizes a parameter of a function-like
                // macro (a `(` right after the name): an object-like macro's `#` could
                // start a forged line marker.
                if (directive.size() == 3 && is(directive[1], "define") && k + 1 < toks.size() &&
                    is(toks[k + 1], "(") && toks[k + 1].pos == t.pos + t.text.size())
                    body_allows_hash = true;
                if (directive.size() > 3 && is(directive[1], "define") && is(t, "#") &&
                    (!body_allows_hash || k + 1 >= toks.size() || toks[k + 1].kind != token::identifier))
                    found.push_back({t.line, "a `#` that is not a stringizing operator is not allowed in lab files"});
            } else if (is(t, "#")) {
                found.push_back({t.line, "a `#` outside a preprocessor directive is not allowed in lab files"});
            } else if (is(t, "##")) {
                found.push_back({t.line, "a `##` outside a preprocessor directive is not allowed in lab files"});
            }
            if (t.kind == token::identifier && (is(t, "_Pragma") || is(t, "__pragma")))
                found.push_back({t.line, "`_Pragma` is not allowed in lab files"});
        }
        if (in_directive && !lex.in_comment()) {
            lex.end_directive();
            check_directive();
            in_directive = false;
        }
    }
    if (in_directive) check_directive();
    return found;
}

// ---- 2. Compile commands ----

compiler_family family_of(const std::string& compiler) {
    const auto slash = compiler.find_last_of('/');
    const std::string base = slash == std::string::npos ? compiler : compiler.substr(slash + 1);
    return base.find("nvcc") != std::string::npos ? compiler_family::nvcc : compiler_family::gcc;
}

compile_command split_compile_command(const std::vector<std::string>& command) {
    compile_command cc;
    // Flags that take the next argument as their value, and flags dropped with it.
    static const std::set<std::string> dropped_with_value = {"-o", "--output-file", "-MT", "-MF", "-MQ",
                                                             "--dependency-output", "--dependency-target-name"};
    static const std::set<std::string> dropped = {"-c", "--compile", "-MD", "-MMD", "-MP", "-M", "-MM", "-E",
                                                  "--generate-dependencies-with-compile",
                                                  "--generate-nonsystem-dependencies-with-compile",
                                                  "--generate-dependency-targets", "--generate-dependencies",
                                                  "--generate-nonsystem-dependencies", "--preprocess"};
    for (std::size_t i = 0; i < command.size(); ++i) {
        const std::string& a = command[i];
        if (i == 0) {
            cc.args.push_back(a);
            continue;
        }
        if (dropped_with_value.count(a) != 0) {
            if (i + 1 < command.size() && (a == "-o" || a == "--output-file")) cc.output = command[i + 1];
            ++i;
            continue;
        }
        if (a == "-c" || a == "--compile") {
            if (i + 1 < command.size() && !command[i + 1].empty() && command[i + 1][0] != '-') cc.input = command[i + 1];
            continue;
        }
        if (dropped.count(a) != 0) continue;
        if (starts_with(a, "--output-file=")) {
            cc.output = a.substr(14);
            continue;
        }
        if (starts_with(a, "-o") && a.size() > 2) {
            cc.output = a.substr(2);
            continue;
        }
        if (starts_with(a, "-MT") || starts_with(a, "-MF") || starts_with(a, "-MQ") ||
            starts_with(a, "--dependency-output=") || starts_with(a, "--dependency-target-name="))
            continue;
        cc.args.push_back(a);
    }
    return cc;
}

std::vector<std::string> dependency_command(const compile_command& cc, compiler_family family,
                                            const std::string& dep_file) {
    std::vector<std::string> out = cc.args;
    out.insert(out.end(), {"-M", "-MF", dep_file});
    if (family == compiler_family::gcc) out.push_back("-MG");
    return out;
}

std::vector<std::string> preprocess_command(const compile_command& cc, compiler_family family,
                                            const std::string& out_file, bool host_view) {
    std::vector<std::string> out = cc.args;
    if (family == compiler_family::nvcc && host_view) out.insert(out.end(), {"-U__CUDA_ARCH__", "-UCUDA_DOUBLE_MATH_FUNCTIONS"});
    out.insert(out.end(), {"-E", "-o", out_file});
    return out;
}

std::vector<std::string> parse_make_rule(const std::string& text) {
    std::vector<std::string> prereqs;
    std::string word;
    bool after_colon = false;
    auto flush = [&] {
        if (word.empty()) return;
        if (!after_colon && word.back() == ':') {
            after_colon = true;  // "target:" ends the targets
        } else if (!after_colon && word == ":") {
            after_colon = true;
        } else if (after_colon) {
            prereqs.push_back(word);
        }
        word.clear();
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
            flush();
            ++i;
            if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
        } else if (c == '\\' && i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '#')) {
            word += text[++i];
        } else if (c == '$' && i + 1 < text.size() && text[i + 1] == '$') {
            word += '$';
            ++i;
        } else if (c == '\n') {
            flush();
            after_colon = false;  // a new rule (phony targets of -MP)
        } else if (c == ' ' || c == '\t' || c == '\r') {
            flush();
        } else if (c == ':' && !after_colon && (i + 1 >= text.size() || std::isspace(static_cast<unsigned char>(text[i + 1])))) {
            word += c;
            flush();
        } else {
            word += c;
        }
    }
    flush();
    return prereqs;
}

std::vector<std::string> parse_search_dirs(const std::string& verbose_output) {
    std::vector<std::string> out;
    bool in_list = false;
    for (const auto& line : lines_of(verbose_output)) {
        if (line.find("search starts here:") != std::string::npos) {
            in_list = true;
        } else if (starts_with(line, "End of search list.")) {
            in_list = false;
        } else if (in_list && !line.empty() && line[0] == ' ') {
            std::string dir = line.substr(line.find_first_not_of(' '));
            const auto note = dir.find(" (framework directory)");
            if (note != std::string::npos) dir = dir.substr(0, note);
            out.push_back(dir);
        }
    }
    return out;
}

bool path_is_under(const std::string& path, const std::string& folder) {
    const std::string dir = without_trailing_slash(folder);
    if (dir == "/") return !path.empty() && path[0] == '/';
    return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/';
}

path_kind classify_path(const std::string& path, const path_policy& policy) {
    if (path == policy.source) return path_kind::source;
    if (path == policy.wrapper) return path_kind::wrapper;
    for (const auto& a : policy.allowed) {
        if (!a.empty() && a.back() == '/' ? path_is_under(path, a) : path == a) return path_kind::allowed;
    }
    for (const auto& root : policy.system_roots) {
        if (path_is_under(path, root)) return path_kind::system;
    }
    return path_kind::forbidden;
}

std::string shown_path(const std::string& path, const std::string& course_root) {
    if (!course_root.empty() && path_is_under(path, course_root))
        return path.substr(without_trailing_slash(course_root).size() + 1);
    return path;
}

std::string reaches_message(const std::string& shown) {
    return "kernels.cu may include only its contract header, CUDA headers and C++ standard headers; it reaches " + shown;
}

// ---- 3. Preprocessed output ----

namespace {

// Checks the tokens of the student's lines.
class token_rules {
public:
    token_rules(const std::string& ns, std::vector<finding>& found) : ns_(ns), found_(found) {}

    void run(const std::vector<token>& t) {
        for (std::size_t i = 0; i < t.size(); ++i) {
            const token& k = t[i];
            if (k.kind == token::identifier) {
                if (is(k, "asm") || is(k, "__asm") || is(k, "__asm__")) {
                    add(k.line, "inline assembly is not allowed in lab files");
                } else if (is(k, "exit")) {
                    add(k.line, "kernels.cu calls `exit`: kernels may call only device code and the CUDA built-ins");
                } else if (is(k, "goto") && i + 1 < t.size() && is(t[i + 1], "*")) {
                    add(k.line, "a computed goto is not allowed in lab files");
                } else if (is(k, "__attribute__") || is(k, "__attribute")) {
                    i = attribute(t, i + 1, "(", ")");
                    continue;
                } else if (is(k, "namespace") && !(i > 0 && is(t[i - 1], "using"))) {
                    i = namespace_head(t, i);
                    continue;
                } else if (is(k, "template") && i + 1 < t.size() && is(t[i + 1], "<")) {
                    specialization(t, i);
                }
            } else if (is(k, "[") && i + 1 < t.size() && is(t[i + 1], "[")) {
                i = attribute(t, i + 1, "[", "]");
                continue;
            } else if (is(k, "{")) {
                frames_.push_back(false);
            } else if (is(k, "}")) {
                if (!frames_.empty()) frames_.pop_back();
            }
        }
    }

private:
    void add(int line, const std::string& message) {
        // One finding per line and message is enough.
        for (const auto& f : found_) {
            if (f.line == line && f.message == message) return;
        }
        found_.push_back({line, message});
    }

    // Skips a bracketed attribute list that starts at t[i] (`open`), checking the names in it.
    std::size_t attribute(const std::vector<token>& t, std::size_t i, const char* open, const char* close) {
        static const std::set<std::string> banned = {"section",     "alias",       "ifunc",         "weakref",
                                                     "symver",      "constructor", "destructor",    "init_priority",
                                                     "target_clones"};
        if (i >= t.size() || !is(t[i], open)) return i - 1;
        int depth = 0;
        for (; i < t.size(); ++i) {
            if (is(t[i], open)) ++depth;
            if (is(t[i], close) && --depth == 0) return i;
            if (t[i].kind == token::identifier && banned.count(strip_underscores(t[i].text)) != 0)
                add(t[i].line, "`__attribute__((" + strip_underscores(t[i].text) +
                                   "))` is not allowed in lab files: it places or runs code where the course does not call it");
        }
        return i;
    }

    // `template <...>` at t[i]: a specialization of another namespace's template (std::hash,
    // std::vector<T*>, ...) would give the worker's own uses of it the file's code.
    void specialization(const std::vector<token>& t, std::size_t i) {
        std::size_t j = i + 1;
        int depth = 0;
        for (; j < t.size(); ++j) {
            if (is(t[j], "<")) ++depth;
            if (is(t[j], ">") && --depth == 0) break;
        }
        if (j >= t.size()) return;
        const bool explicit_specialization = j == i + 2;
        auto qualified_outside = [&](std::size_t at) {
            return at + 1 < t.size() && t[at].kind == token::identifier && is(t[at + 1], "::") && t[at].text != ns_;
        };
        auto refuse = [&](std::size_t at) {
            add(t[at].line, "a lab file may not specialize a template outside namespace LAB_IMPL (`" + t[at].text +
                                "::" + (at + 2 < t.size() ? t[at + 2].text : "") + "`)");
        };
        for (std::size_t k = j + 1; k < t.size(); ++k) {
            if (is(t[k], "__attribute__") || is(t[k], "__attribute")) {
                k = attribute(t, k + 1, "(", ")");
                continue;
            }
            if (is(t[k], "[") && k + 1 < t.size() && is(t[k + 1], "[")) {
                k = attribute(t, k + 1, "[", "]");
                continue;
            }
            if (is(t[k], "struct") || is(t[k], "class") || is(t[k], "union")) {
                if (k + 1 < t.size() && qualified_outside(k + 1)) refuse(k + 1);
                return;
            }
            if (!explicit_specialization || is(t[k], "{") || is(t[k], ";") || is(t[k], "=")) return;
            if (is(t[k], "(")) {
                // The declarator-id: the last qualified name before the parameters (its
                // template arguments skipped), read backwards: name, ::, name, ...
                std::size_t start = k, depth_lt = 0;
                bool want_name = true;
                for (std::size_t m = k; m-- > j + 1;) {
                    if (is(t[m], ">")) ++depth_lt;
                    if (is(t[m], "<") && depth_lt > 0) --depth_lt;
                    if (depth_lt > 0 || is(t[m], "<") || is(t[m], ">")) continue;
                    if (want_name ? t[m].kind != token::identifier : !is(t[m], "::")) break;
                    start = m;
                    want_name = !want_name;
                }
                if (start < k && qualified_outside(start)) refuse(start);
                return;
            }
        }
    }

    // `namespace` at t[i]: reads its name up to `{` (a definition), `=` or `;`.
    std::size_t namespace_head(const std::vector<token>& t, std::size_t i) {
        std::vector<std::string> names;
        std::size_t j = i + 1;
        for (; j < t.size(); ++j) {
            if (is(t[j], "{") || is(t[j], "=") || is(t[j], ";")) break;
            if (is(t[j], "__attribute__") || is(t[j], "__attribute")) {
                j = attribute(t, j + 1, "(", ")");
            } else if (is(t[j], "[") && j + 1 < t.size() && is(t[j + 1], "[")) {
                j = attribute(t, j + 1, "[", "]");
            } else if (t[j].kind == token::identifier && !is(t[j], "inline")) {
                names.push_back(t[j].text);
            }
        }
        if (j >= t.size() || !is(t[j], "{")) return j;  // an alias, or broken code the compiler rejects
        const bool nested = std::find(frames_.begin(), frames_.end(), true) != frames_.end();
        const bool ok = nested || names.empty() || names.front() == ns_;
        if (!ok)
            add(t[i].line, "namespace `" + names.front() +
                               "` is not allowed in lab files: everything goes inside namespace LAB_IMPL (" + ns_ +
                               " here) or an anonymous namespace");
        frames_.push_back(ok);
        return j;
    }

    const std::string& ns_;
    std::vector<finding>& found_;
    std::vector<bool> frames_;  // open braces: true for a namespace that may hold any namespace
};

// A GCC line marker: `# 12 "file" 1 3`. Sets `line` and `file`.
bool line_marker(const std::string& s, int& line, std::string& file) {
    if (s.size() < 5 || s[0] != '#' || s[1] != ' ' || !std::isdigit(static_cast<unsigned char>(s[2]))) return false;
    std::size_t i = 2;
    long n = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) n = n * 10 + (s[i++] - '0');
    if (s.compare(i, 2, " \"") != 0) return false;
    i += 2;
    std::string name;
    for (; i < s.size() && s[i] != '"'; ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) ++i;
        name += s[i];
    }
    if (i >= s.size()) return false;
    for (++i; i < s.size(); ++i) {
        if (s[i] != ' ' && !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    }
    line = static_cast<int>(n);
    file = name;
    return true;
}

}  // namespace

std::vector<finding> scan_preprocessed(const std::string& text, const std::function<bool(const std::string&)>& is_source,
                                       const std::string& ns) {
    std::vector<finding> found;
    std::vector<token> toks;
    lexer lex;
    std::map<std::string, bool> source_files;
    bool in_source = false;
    int line = 1;
    std::istringstream in(text);
    for (std::string s; std::getline(in, s); ++line) {
        int marker_line = 0;
        std::string file;
        if (!lex.in_raw_string() && line_marker(s, marker_line, file)) {
            auto known = source_files.find(file);
            if (known == source_files.end()) known = source_files.emplace(file, is_source(file)).first;
            in_source = known->second;
            lex.reset();
            line = marker_line - 1;
            continue;
        }
        if (!in_source) continue;
        const auto start = s.find_first_not_of(" \t");
        if (!lex.in_raw_string() && start != std::string::npos && s.compare(start, 7, "#pragma") == 0) {
            // Written as #pragma or made by _Pragma: both reach the compiler as this line.
            std::vector<token> rest;
            lexer pragma_lexer;
            const std::string body = s.substr(start + 7);
            pragma_lexer.feed(body, std::vector<int>(body.size(), line), rest);
            const std::string bad = disallowed_pragma(rest);
            if (!bad.empty()) found.push_back({line, pragma_message(bad)});
            continue;
        }
        lex.feed(s, std::vector<int>(s.size(), line), toks);
    }
    token_rules(ns, found).run(toks);
    std::stable_sort(found.begin(), found.end(), [](const finding& a, const finding& b) { return a.line < b.line; });
    return found;
}

// ---- 4. Compiler messages ----

namespace {

// The file a message line is about, or false when the line starts no message.
bool message_location(const std::string& line, std::string& file) {
    if (line.empty() || std::isspace(static_cast<unsigned char>(line[0]))) return false;
    if (starts_with(line, "In file included from ")) {
        file.clear();  // the chain that leads to a message about another file
        return true;
    }
    // nvcc: PATH(LINE): ...
    std::size_t nvcc_at = std::string::npos;
    for (std::size_t p = line.find('('); p != std::string::npos; p = line.find('(', p + 1)) {
        std::size_t q = p + 1;
        while (q < line.size() && std::isdigit(static_cast<unsigned char>(line[q]))) ++q;
        if (q > p + 1 && line.compare(q, 3, "): ") == 0) {
            nvcc_at = p;
            break;
        }
    }
    // gcc: PATH:LINE:COL: ... or PATH:LINE: ...
    std::size_t gcc_at = std::string::npos;
    for (std::size_t p = line.find(':'); p != std::string::npos; p = line.find(':', p + 1)) {
        std::size_t q = p + 1;
        while (q < line.size() && std::isdigit(static_cast<unsigned char>(line[q]))) ++q;
        if (q > p + 1 && q < line.size() && line[q] == ':') {
            gcc_at = p;
            break;
        }
    }
    const std::size_t at = std::min(nvcc_at, gcc_at);
    if (at != std::string::npos && at > 0) {
        file = line.substr(0, at);
        return true;
    }
    // gcc: PATH: In function 'f':, PATH: At global scope:, PATH: In instantiation of ...:
    if (line.back() == ':') {
        for (const char* what : {": In ", ": At "}) {
            const auto p = line.find(what);
            if (p != std::string::npos && p > 0) {
                file = line.substr(0, p);
                return true;
            }
        }
    }
    file.clear();
    return true;  // a line of its own (a driver's, a summary): about no file of the student's
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    if (from.empty()) return s;
    for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
    return s;
}

}  // namespace

diagnostics filter_diagnostics(const std::string& output, const std::function<bool(const std::string&)>& is_source,
                               const std::vector<std::string>& spellings, const std::string& display) {
    diagnostics d;
    bool keep = false;
    std::vector<std::string> longest_first = spellings;
    std::sort(longest_first.begin(), longest_first.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    for (const auto& line : lines_of(output)) {
        std::string file;
        if (message_location(line, file)) keep = !file.empty() && is_source(file);
        if (!keep) {
            if (line.find_first_not_of(" \t") != std::string::npos) ++d.hidden_lines;
            continue;
        }
        std::string shown = line;
        for (const auto& s : longest_first) shown = replace_all(shown, s, display);
        d.kept.push_back(shown);
    }
    while (!d.kept.empty() && d.kept.back().find_first_not_of(" \t") == std::string::npos) d.kept.pop_back();
    return d;
}

limit_hit detect_limit(const std::string& output, int term_signal, bool timed_out,
                       const std::function<bool(const std::string&)>& is_source) {
    if (timed_out) return limit_hit::wall_clock;
    if (term_signal == SIGXCPU) return limit_hit::cpu;
    if (term_signal == SIGXFSZ) return limit_hit::file_size;
    for (const auto& line : lines_of(output)) {
        std::string file;
        if (message_location(line, file) && !file.empty() && is_source(file)) continue;
        if (line.find("CPU time limit exceeded") != std::string::npos || line.find("signal 24") != std::string::npos)
            return limit_hit::cpu;
        if (line.find("File size limit exceeded") != std::string::npos || line.find("signal 25") != std::string::npos)
            return limit_hit::file_size;
        for (const char* m : {"out of memory", "memory exhausted", "Cannot allocate memory", "std::bad_alloc",
                              "cannot allocate"}) {
            if (line.find(m) != std::string::npos) return limit_hit::memory;
        }
    }
    return limit_hit::none;
}

// ---- 5. The object ----

std::string demangle(const std::string& mangled) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && out ? std::string(out.get()) : mangled;
}

std::string symbol_scope(const std::string& mangled, std::string* global_name) {
    if (global_name != nullptr) global_name->clear();
    if (!starts_with(mangled, "_Z")) {
        if (global_name != nullptr) *global_name = mangled;
        return "";
    }
    return mangled_reader(mangled).special_or_encoding(global_name);
}

namespace {

// Whether an instruction (AT&T syntax) may write memory other than the stack: its last
// operand is memory that is not addressed from %rsp or %rbp. Compares, tests, pushes,
// calls, jumps and nops write nothing else.
bool writes_memory(const std::string& text) {
    const auto w = words(text);
    if (w.size() < 2) return false;
    const std::string& op = w[0];
    for (const char* reader : {"cmp", "test", "push", "call", "jmp", "nop", "lea", "bt", "ucomis", "comis"}) {
        if (starts_with(op, reader)) return false;
    }
    if (op[0] == 'j') return false;
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
    if (dest.empty() || dest[0] == '%' || dest[0] == '$') return false;
    return dest.find("(%rsp)") == std::string::npos && dest.find("(%rbp)") == std::string::npos;
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
        if (s.name != ".init_array" || s.type != "INIT_ARRAY" || s.size % 8 != 0 || s.size > 16) {
            add(constructor_message);
            continue;
        }
        const auto rel = relocations.find(".rela.init_array");
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
    // Constructors first: they are what runs by itself.
    std::stable_partition(found.begin(), found.end(),
                          [](const finding& f) { return f.message == constructor_message; });
    return found;
}

}  // namespace course::rules
