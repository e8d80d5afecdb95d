#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace course {

// A problem's size as the policy and the protocol write it, whatever its kind: a count
// (elements, records: 4097) or a shape of rows x columns ("257x129"). What a count
// counts is the kind's business (grader/worker/kinds/).
struct problem_size {
    std::uint64_t count = 0;      // 0 for a shape
    unsigned rows = 0, cols = 0;  // 0 for a count

    bool is_shape() const { return rows != 0; }
    // The count, or rows * cols.
    std::uint64_t elements() const { return is_shape() ? std::uint64_t{rows} * cols : count; }
    // How a correctness case names the size: "n=4097", "257x129".
    std::string word() const;
    friend bool operator==(const problem_size& a, const problem_size& b) {
        return a.count == b.count && a.rows == b.rows && a.cols == b.cols;
    }
    friend bool operator<(const problem_size& a, const problem_size& b) {
        return a.elements() != b.elements() ? a.elements() < b.elements()
                                            : a.rows != b.rows ? a.rows < b.rows : a.cols < b.cols;
    }
};

// "31x33" -> rows 31, cols 33; false when malformed or either side is 0.
bool parse_shape(const std::string& text, unsigned& rows, unsigned& cols);

// A count is a JSON number (at least 1), a shape a string "ROWSxCOLS"; anything else
// throws std::invalid_argument with the value in its message.
void to_json(nlohmann::json& j, const problem_size& s);
void from_json(const nlohmann::json& j, problem_size& s);

}  // namespace course
