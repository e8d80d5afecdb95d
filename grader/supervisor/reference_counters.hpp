#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/policy.hpp"
#include "core/protocol.hpp"
#include "core/result.hpp"

namespace course {

// A class's reference counters: what the emulator counts when a part's reference and naive
// baseline run traced on each problem a grade can draw for its technique checks. They do
// not depend on the student (the same course objects run on the same problem), so a batch
// counts them once, with the lab's template worker, whose student is the course's stub: no
// student's code is in that process. A grade given them (`grader --reference-counters`)
// then counts only the student's version, and takes the rest from here.
struct reference_counters {
    std::string lab;
    std::string worker;         // the template worker that counted them
    std::string worker_sha256;  // its bytes then: a rebuilt course counts afresh
    // part id -> problem word ("n=4194311") -> the versions (baseline, reference) there
    std::map<std::string, std::map<std::string, std::vector<version_counters>>> parts;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(reference_counters, lab, worker, worker_sha256, parts)

// Every problem of each kind that a grade can draw for its counters (counted_from and up,
// the large ones included), sorted: what correctness_phase draws among.
counters_request countable_problems(const policy& pol);

// Counts them for every part of `lab` with `worker` (an emulated lab worker, no student's
// code in it) and returns them. Throws std::runtime_error saying why it could not.
reference_counters count_reference_counters(const std::string& lab, const policy& pol, const std::string& worker);

// The file `path` (written by `grader --count-references`): "" into `out` when it can stand
// in for this grade's own counting, else why not (unreadable, not the bytes `sha256` names
// when given, another lab, a worker changed since, or a drawn problem of a part missing).
std::string load_reference_counters(const std::string& path, const std::string& sha256, const std::string& lab,
                                    const counters_request& drawn, const std::vector<part_info>& parts,
                                    reference_counters& out);

// A student-only counters event (counters_request::student_only) made whole: the class's
// baseline and reference before the student's on each problem, as a worker counts them
// all. Only the event's student versions are kept: a worker says nothing about the others.
void merge_reference_counters(counters_event& event, const reference_counters& cache);

}  // namespace course
