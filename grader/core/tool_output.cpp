#include "core/tool_output.hpp"

#include <regex>
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

}  // namespace course
