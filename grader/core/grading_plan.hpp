#pragma once
// What a grade checks, on each backend, and what a failure costs: the one account that
// the checks phase, the correctness request and the handouts' cited statements
// (scripts/cite_grading.py, through `grader --describe-grading`) all read.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/policy.hpp"
#include "core/scoring.hpp"

namespace course {

// The correctness cases a backend runs, by problem kind (the emulator's are smaller, with
// the same edges, and a large random case).
struct case_lists {
    std::map<std::string, kind_cases> problems;
    std::vector<std::string> inputs;  // reduction input kinds
};
case_lists cases_of(const policy& pol, bool emulated);
// The policy the emulator's run beside a GPU grades with (its counters and hazard trace):
// POL, less every kind's large_sizes_emulated where emulated_counters.large_beside_gpu is
// false. The GPU runs its own large sizes for correctness; beside it a large case adds the
// emulator's run at that size (traced_run), one more problem the counters may be drawn
// from, and the hazard trace there, at about three quarters of the emulator's CPU in a
// lab 3 grading.
policy beside_gpu(const policy& pol);
// The cases compute-sanitizer runs on a GPU, by kind: its sanitizer_sizes.
std::map<std::string, kind_cases> sanitizer_cases(const policy& pol);

// Whether the backend awards performance points: a GPU, or the emulator with
// "emulated_performance": "pending".
bool performance_awarded(const policy& pol, bool gpu);

// Whether NAME is in LIST (a policy's check names, part ids).
bool listed(const std::vector<std::string>& list, const std::string& name);

// Whether compute-sanitizer racecheck, rather than the emulator's trace, judges a part's
// races: on a GPU, for the lab's race_check_parts.
bool racecheck_judges(const lab_policy& lp, const std::string& part, bool gpu);

// The checks of a part read from the emulator's counters, in the order they run: the
// lab's bank_wavefronts first, then the part's emulated_checks.
std::vector<std::string> counter_check_names(const lab_policy& lp, const std::string& part);

// One check a grade runs: its name, what judges it on this backend, and what a failure
// costs (penalty_of); `whole_lab` for a check of the file (no_libraries: every part).
struct planned_check {
    std::string name;
    std::string judged_by;
    check_penalty cost = check_penalty::none;
    bool whole_lab = false;
};
// A GPU grade as the course's build makes it, with the emulated worker beside the GPU one.
std::vector<planned_check> planned_checks(const policy& pol, const std::string& lab, const std::string& part,
                                          bool gpu);

// Every lab's plan on both backends, as JSON: {"labs": {lab: {"parts": {id: {"gpu": [...],
// "emulated": [...]}}, "points": {...}, "race_check_parts": [...]}}, "cases": {"gpu": ...,
// "emulated": ..., "emulated_beside_gpu": ...}}.
// `labs`: name -> part ids.
nlohmann::json grading_plan(const policy& pol,
                            const std::vector<std::pair<std::string, std::vector<std::string>>>& labs);

}  // namespace course
