#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/policy.hpp"
#include "core/result.hpp"

namespace course {

struct grade_options {
    std::string lab;
    std::string worker_dir;  // holds <lab>_worker_gpu and <lab>_worker_emu
    bool force_emulate = false;
    std::optional<std::uint64_t> seed;
    std::string benchmark_out;
    bool sanitize = false;  // run compute-sanitizer memcheck and racecheck (GPU only)
    bool profile = false;   // report shared-memory wavefronts from ncu for every lab (GPU only)
    std::function<void(const std::string&)> progress;  // one line of status, or empty
};

// Grades one lab: environment check, correctness, performance (GPU only), scoring.
// Never throws for anything a student's code does; an infrastructure problem is
// returned in lab_result::infrastructure_error with exit code 2.
lab_result grade_lab(const grade_options& options, const policy& pol);

// Fills scores, verdict, exit code and summary from the parts' results.
void score_lab(lab_result& r, const policy& pol);

}  // namespace course
