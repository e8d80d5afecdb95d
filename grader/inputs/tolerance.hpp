#pragma once
#include <cstddef>

namespace course {

// Unit roundoff of float32 (round to nearest): 2^-24.
inline constexpr double float_unit_roundoff = 1.0 / 16777216.0;

// ceil(log2 n) for n >= 1: the depth of a binary summation tree over n values.
unsigned tree_depth(std::size_t n);

// Worst-case rounding error of a float32 tree sum, scaled by a safety factor c:
//   c * ceil(log2 n) * 2^-24 * sum|x|
// (Higham, "Accuracy and Stability of Numerical Algorithms", pairwise summation).
// docs/grading.md says why c = 3 is the default.
double tree_sum_tolerance(std::size_t n, double sum_abs, double c);

// True when every partial sum of a float32 sum over these inputs is an integer that
// float32 represents exactly (|partial| <= 2^24), so any summation order is exact.
bool sum_is_exact_in_float(bool integer_valued, double sum_abs);

// NaN and infinities never pass.
bool within_tolerance(double expected, double got, double tolerance);

}  // namespace course
