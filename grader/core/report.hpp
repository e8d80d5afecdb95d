#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.hpp"

namespace course {

// The human report; `color` adds ANSI colours (the caller decides: a TTY and no NO_COLOR).
std::string render_text(const lab_result& r, bool color);

// `lab3: 87/100 (correct; C 4.1x vs naive, target 4.0x)`
std::string summary_line(const lab_result& r);

// "labs/lab1_divergent/kernels.cu does not compile": what a build failure was, in words.
std::string build_failure_words(const lab_result& r);

// Gradescope's autograder results.json: top-level score, output and visibility, and one
// test per part and aspect with name, score, max_score, status, output and visibility.
nlohmann::json to_gradescope(const lab_result& r);

// JUnit XML: one testsuite for the lab, one testcase per part and aspect.
std::string to_junit_xml(const lab_result& r);

std::string xml_escape(const std::string& s);

// Writes through a temporary file and a rename, so a reader never sees half a report.
// Throws std::runtime_error naming the path when it cannot.
void write_file_atomic(const std::string& path, const std::string& content);

// Saves a run of the student's own labs/ file as DIR/<lab>.json (the whole result, written
// atomically), which `./grade progress` reads; creates DIR. Returns "" when saved, else why not.
std::string save_progress(const lab_result& r, const std::string& dir);

// Fails early, before any grading, for a path whose folder does not exist or is not
// writable. Returns "" when it is fine, else the reason.
std::string output_path_problem(const std::string& path);

}  // namespace course
