#include "rules/rules_diagnostics.hpp"

#include <algorithm>
#include <cctype>
#include <csignal>

#include "rules/rules_text.hpp"

namespace course::rules {

using detail::lines_of;
using detail::starts_with;

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

}  // namespace course::rules
