#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inputs/host_floats.hpp"

namespace course {

// Input families for the reduction labs. None of them is all zeros: zeros hide
// unwritten outputs and skipped elements.
enum class input_kind {
    random,        // uniform in [0, 1): the classic benchmark input
    ones,          // all 1.0f: the exact answer is n
    integers,      // integer values in [-8, 8]: exact in float while sum|x| <= 2^24
    cancellation,  // large values of both signs that cancel in pairs, plus small noise
    index,         // (matrices) value = linear index mod 2^24: shows where an element went
};

std::string to_string(input_kind kind);
std::optional<input_kind> parse_input_kind(const std::string& name);
bool is_integer_valued(input_kind kind);

// Mixes the run's seed with what identifies one input, so that every case gets its
// own reproducible stream.
std::uint64_t case_seed(std::uint64_t run_seed, input_kind kind, std::uint64_t size_tag);

void fill_input(input_kind kind, std::uint64_t seed, float* out, std::size_t n);
host_floats make_input(input_kind kind, std::uint64_t seed, std::size_t n);

struct exact_sum {
    double sum = 0;      // in double: far more precise than any float32 kernel
    double sum_abs = 0;  // for the tolerance bound
};
exact_sum reference_sum(const float* x, std::size_t n);

// A fresh seed for a run (from std::random_device), printed so that --seed repeats it.
std::uint64_t fresh_seed();

}  // namespace course
