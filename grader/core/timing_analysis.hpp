#pragma once
#include <string>
#include <vector>

#include "core/result.hpp"

namespace course {

// Raw samples of one timed part, in milliseconds, one per interleaved round.
struct timing_samples {
    std::string problem;
    double bytes = 0;
    std::string kernel[3];  // naive, reference, student
    std::vector<double> ms[3];
    double copy_gbps = 0;
    double peak_gbps = 0;
};

// From the policy (lab_policy and policy): no defaults here.
struct timing_rule {
    double threshold_fraction = 0;    // of the reference's speedup
    double floor_fraction = 0;        // of the target; credit reaches 0 there
    double confidence = 0;
    double implausible_fraction = 0;  // of the theoretical peak bandwidth
};

// Statistics and verdict. The rounds are paired (the three kernels ran back to back),
// so ratios are taken per round: speedup = median(t_naive / t_student), and the verdict
// compares the confidence interval of median(t_reference / t_student) with the
// threshold fraction, which cancels most of the drift a shared GPU adds.
timing_result analyze_timing(const timing_samples& s, const timing_rule& rule);

}  // namespace course
