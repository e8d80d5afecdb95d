#include "core/code_place.hpp"

#include <sstream>
#include <vector>

namespace course {

std::string place_code(const std::string& text, const std::function<std::string(const std::string& hex)>& resolve) {
    static const std::string at_mark = " [at exe+", via_mark = " [via exe+";
    std::string out;
    std::size_t pos = 0;
    while (true) {
        const std::size_t at = text.find(at_mark, pos), via = text.find(via_mark, pos);
        const bool is_via = via < at;
        const std::size_t mark = is_via ? via : at;
        const std::size_t open = is_via ? via_mark.size() : at_mark.size();
        const std::size_t end = mark == std::string::npos ? mark : text.find(']', mark);
        if (mark == std::string::npos || end == std::string::npos) break;
        out += text.substr(pos, mark - pos);
        const std::string where = resolve(text.substr(mark + open, end - mark - open));
        if (!is_via) {
            if (!where.empty()) out += " (at " + where + ")";
        } else if (const std::size_t caller = where.find(" via "); caller != std::string::npos) {
            // The message names the call's own line already: only the kernel line it was
            // inlined into is new.
            out += where.substr(caller);
        }
        pos = end + 1;
    }
    return out + text.substr(pos);
}

namespace {

// Every location in a file named `file_name`, innermost first.
std::vector<std::string> lines_in_file(const std::string& addr2line_output, const std::string& file_name) {
    std::vector<std::string> out;
    std::istringstream lines(addr2line_output);
    for (std::string line; std::getline(lines, line);) {
        // "/path/kernels.cu:23 (discriminator 2)"
        const std::size_t space = line.find(" (");
        if (space != std::string::npos) line.erase(space);
        const std::size_t colon = line.rfind(':');
        if (colon == std::string::npos) continue;
        const std::string path = line.substr(0, colon), number = line.substr(colon + 1);
        const std::size_t slash = path.rfind('/');
        const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
        if (base == file_name && !number.empty() && number != "0" && number != "?") out.push_back(base + ":" + number);
    }
    return out;
}

}  // namespace

std::string line_in_file(const std::string& addr2line_output, const std::string& file_name) {
    const auto all = lines_in_file(addr2line_output, file_name);
    return all.empty() ? "" : all.front();
}

std::string line_and_call_site(const std::string& addr2line_output, const std::string& file_name) {
    const auto all = lines_in_file(addr2line_output, file_name);
    if (all.empty()) return "";
    return all.back() == all.front() ? all.front() : all.front() + " via " + all.back();
}

}  // namespace course
