#include "core/problem_size.hpp"

#include <cstdio>
#include <stdexcept>

namespace course {

std::string problem_size::word() const {
    return is_shape() ? std::to_string(rows) + "x" + std::to_string(cols) : "n=" + std::to_string(count);
}

bool parse_shape(const std::string& text, unsigned& rows, unsigned& cols) {
    char tail = 0;
    return std::sscanf(text.c_str(), "%ux%u%c", &rows, &cols, &tail) == 2 && rows > 0 && cols > 0 &&
           text.find_first_not_of("0123456789x") == std::string::npos;
}

void to_json(nlohmann::json& j, const problem_size& s) {
    if (s.is_shape()) {
        j = std::to_string(s.rows) + "x" + std::to_string(s.cols);
    } else {
        j = s.count;
    }
}

void from_json(const nlohmann::json& j, problem_size& s) {
    s = {};
    const bool count = j.is_number_unsigned() ? j.get<std::uint64_t>() > 0
                                              : j.is_number_integer() && j.get<std::int64_t>() > 0;
    if (count) {
        s.count = j.get<std::uint64_t>();
        return;
    }
    if (j.is_string() && parse_shape(j.get<std::string>(), s.rows, s.cols)) return;
    s = {};
    throw std::invalid_argument(j.dump() + " is not a size (a count of at least 1, or \"ROWSxCOLS\")");
}

}  // namespace course
