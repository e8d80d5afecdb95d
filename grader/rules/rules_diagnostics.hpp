#pragma once
// 4. Compiler messages: what of the compiler's output the student may see, and whether a
// resource limit stopped the compiler.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace course::rules {

// Keeps the messages located in the student's file (gcc `PATH:LINE:COL: ...`,
// `PATH: In function ...` and nvcc `PATH(LINE): ...`, with the lines that follow each),
// with `display` in place of every spelling of its path; counts the other lines.
struct diagnostics {
    std::vector<std::string> kept;
    std::size_t hidden_lines = 0;
};
diagnostics filter_diagnostics(const std::string& output, const std::function<bool(const std::string&)>& is_source,
                               const std::vector<std::string>& spellings, const std::string& display);

enum class limit_hit { none, cpu, memory, file_size, wall_clock };
// Which resource limit stopped a compiler: from the signal that ended it, the guard's own
// timeout, or what the compiler driver says about a program it started (lines about the
// student's file do not count: a student can write anything in an #error).
limit_hit detect_limit(const std::string& output, int term_signal, bool timed_out,
                       const std::function<bool(const std::string&)>& is_source);

}  // namespace course::rules
