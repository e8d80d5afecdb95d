#pragma once
#include <cstddef>
#include <vector>

namespace course {

// Median of the samples (the mean of the two middle values for an even count).
double median(std::vector<double> samples);

// Coefficient of variation: sample standard deviation over the mean.
double coefficient_of_variation(const std::vector<double>& samples);

struct interval {
    double lo = 0;
    double hi = 0;
};

// Distribution-free confidence interval for the median, from order statistics: the
// k-th smallest and k-th largest samples, with k the largest rank for which
// P(Binomial(n, 1/2) < k) <= (1 - confidence) / 2. Needs no assumption about the
// shape of the timing noise. With fewer than 6 samples the interval is the full range.
interval median_confidence_interval(std::vector<double> samples, double confidence);

// The rank k above (1-based), exposed for the unit tests.
std::size_t median_ci_rank(std::size_t n, double confidence);

}  // namespace course
