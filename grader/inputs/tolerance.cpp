#include "inputs/tolerance.hpp"

#include <cmath>

namespace course {

unsigned tree_depth(std::size_t n) {
    unsigned depth = 0;
    std::size_t reach = 1;
    while (reach < n) {
        reach *= 2;
        ++depth;
    }
    return depth;
}

double tree_sum_tolerance(std::size_t n, double sum_abs, double c) {
    return c * static_cast<double>(tree_depth(n)) * float_unit_roundoff * sum_abs;
}

bool sum_is_exact_in_float(bool integer_valued, double sum_abs) {
    return integer_valued && sum_abs <= 16777216.0;
}

bool within_tolerance(double expected, double got, double tolerance) {
    if (!std::isfinite(got) || !std::isfinite(expected)) return false;
    return std::fabs(got - expected) <= tolerance;
}

}  // namespace course
