#pragma once
// Where a part stands on the course's optimization ladder, read from the emulator's
// counters of the student's own kernel (never from its source text): the rung its memory
// traffic behaves like, and the next step up. It decides no points; the reports show it.
#include <string>
#include <vector>

#include "core/result.hpp"

namespace course {

struct ladder_reading {
    std::string reached;  // "sequential addressing without the first add during the load (lab 2 B)"
    std::string next;     // "add two elements during the load (lab 3 A)", "" at the top
};

// `ladder` is the part's problem kind's ("reduction": lab 1 to 4's rungs, "banks": lab 5's;
// the policy's problems block). Reads the student's version on the largest problem
// counted; an empty reading where there is none.
ladder_reading ladder_rung(const std::vector<version_counters>& counters, const std::string& ladder);

// "behaves like R; next: N" (or "...; the top of the ladder"), "" for an empty reading.
std::string ladder_words(const ladder_reading& r);

}  // namespace course
