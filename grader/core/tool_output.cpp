#include "core/tool_output.hpp"

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

const std::regex& forbidden_include() {
    static const std::regex re(R"(^\s*#\s*include\s*[<"]\s*(cub|thrust|cublas|cublasLt|cudnn|cusparse|cufft|curand|cutlass|cute)\b)");
    return re;
}

const std::regex& forbidden_symbol() {
    static const std::regex re(R"(\b(cub::|thrust::|cublas|cudnn|cusparse|cufft|curand|cutlass::|cute::))");
    return re;
}

}  // namespace

std::vector<std::string> forbidden_library_uses(const std::string& source, const std::string& nm_output) {
    std::vector<std::string> found;
    const auto src = lines_of(source);
    for (std::size_t i = 0; i < src.size(); ++i) {
        if (std::regex_search(src[i], forbidden_include()))
            found.push_back("line " + std::to_string(i + 1) + ": " + src[i]);
    }
    for (const auto& line : lines_of(nm_output)) {
        std::smatch m;
        if (std::regex_search(line, m, forbidden_symbol())) {
            // "                 U cub::..." -> keep the symbol
            const auto pos = line.find_first_not_of(' ', line.find(' ', line.find_first_not_of(' ')) + 1);
            found.push_back("symbol " + (pos == std::string::npos ? line : line.substr(pos)));
            if (found.size() >= 8) break;
        }
    }
    return found;
}

sass_search find_in_sass(const std::string& sass, const std::string& kernel, const std::string& opcode,
                         const std::vector<std::string>& other_kernels) {
    // Sections start with "Function : <mangled name>".
    bool seen_kernel = false, in_kernel = false, in_other = false, found_kernel = false, found_helper = false;
    for (const auto& line : lines_of(sass)) {
        const auto f = line.find("Function : ");
        if (f != std::string::npos) {
            const std::string name = line.substr(f + 11);
            in_kernel = name.find(kernel) != std::string::npos;
            seen_kernel = seen_kernel || in_kernel;
            in_other = false;
            for (const auto& o : other_kernels)
                if (!in_kernel && name.find(o) != std::string::npos) in_other = true;
            continue;
        }
        if (line.find(opcode) == std::string::npos) continue;
        if (in_kernel) found_kernel = true;
        else if (!in_other) found_helper = true;
    }
    if (!seen_kernel) return sass_search::no_such_function;
    return found_kernel || found_helper ? sass_search::found : sass_search::not_found;
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
