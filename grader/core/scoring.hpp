#pragma once
#include <string>

#include "core/stats.hpp"

namespace course {

// Performance credit in [0, 1]: full at or above the target speedup, falling off
// linearly to 0 at floor_fraction * target.
double performance_credit(double speedup, double target, double floor_fraction);

enum class perf_verdict { meets_target, below_target, inconclusive };

// Decides from the confidence interval of the speedup, never from one noisy number:
// the whole interval must sit on one side of the target.
perf_verdict decide(const interval& speedup_ci, double target);

std::string to_string(perf_verdict v);

// What failed technique checks cost a part, on every backend. The one rule:
//  - everything: the work is not the student's own or not sound, so the part earns
//    nothing, like a wrong result: no_libraries (a library reduction; it costs every part
//    of the lab), races (a shared-memory race that the tests happened to miss) and
//    initcheck (a read of shared memory no thread wrote: the emulator finds it) and
//    traced_run (the emulator's counted run of a correct kernel gave a wrong result or failed);
//  - performance: the kernel is right but its speed does not come from the technique the
//    lab teaches, so it keeps its correctness points and loses its performance points:
//    uses_shuffle and bank_wavefronts (and any check not named above).
// Either way the part does not pass, so the lab fails, on the emulator too.
enum class check_penalty { none, performance, everything };
std::string to_string(check_penalty p);
// `performance_awarded`: false where the backend gives no performance points (the CPU
// emulator with "emulated_performance": "omit"); a check that would cost them costs the
// part's points there, so that the failure shows in the score.
check_penalty penalty_of(const std::string& failed_check, bool performance_awarded = true);
// The larger of two penalties.
check_penalty worse(check_penalty a, check_penalty b);

// Points for one part: correctness is all or nothing (a kernel that is wrong for some
// n is wrong); performance points need a correct kernel; `penalty` applies the rule above.
struct part_points {
    double correctness = 0;
    double performance = 0;
    double total() const { return correctness + performance; }
};
part_points score_part(double part_max, double correctness_weight, bool correct, double perf_credit,
                       check_penalty penalty = check_penalty::none);

}  // namespace course
