#pragma once
// What the tests of the submission rules (test_rules_*.cpp) share: readable failures, the
// findings as "line: message" strings, the student's file, and the ends of messages.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "rules/submission_rules.hpp"

namespace doctest {
// Failures print the lists they compare.
template <>
struct StringMaker<std::vector<std::string>> {
    static String convert(const std::vector<std::string>& v) {
        std::string out = "{";
        for (const auto& s : v) out += "\n  \"" + s + "\"";
        return (out + "\n}").c_str();
    }
};
}  // namespace doctest

namespace rules_test {

inline std::vector<std::string> messages(const std::vector<course::rules::finding>& found) {
    std::vector<std::string> out;
    for (const auto& f : found) out.push_back(std::to_string(f.line) + ": " + f.message);
    return out;
}

inline bool student(const std::string& file) { return file == "/c/labs/lab3_unrolled/kernels.cu"; }

inline const char* const calls_tail = "`: kernels may call only device code and the CUDA built-ins";
inline const char* const defines_tail =
    "` outside namespace LAB_IMPL: a lab file may define only its kernels and helpers";
inline const char* const constructor =
    "kernels.cu has a constructor or initializer of its own: lab files may hold no host code that runs by itself";

}  // namespace rules_test
