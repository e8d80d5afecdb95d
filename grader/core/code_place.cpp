#include "core/code_place.hpp"

#include <sstream>

namespace course {

std::string place_code(const std::string& text, const std::function<std::string(const std::string& hex)>& resolve) {
    static const std::string open = " [at exe+";
    std::string out;
    std::size_t pos = 0;
    while (true) {
        const std::size_t at = text.find(open, pos);
        const std::size_t end = at == std::string::npos ? at : text.find(']', at);
        if (at == std::string::npos || end == std::string::npos) break;
        out += text.substr(pos, at - pos);
        const std::string where = resolve(text.substr(at + open.size(), end - at - open.size()));
        if (!where.empty()) out += " (at " + where + ")";
        pos = end + 1;
    }
    return out + text.substr(pos);
}

std::string line_in_file(const std::string& addr2line_output, const std::string& file_name) {
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
        if (base == file_name && !number.empty() && number != "0" && number != "?") return base + ":" + number;
    }
    return "";
}

}  // namespace course
