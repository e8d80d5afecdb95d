#pragma once
// Changed inputs: before every timed run (and once more in the correctness suites) the
// grader rewrites a few input elements, so that no two runs see the same input. A kernel
// that remembers results, keyed on its input or left over in an output buffer, then
// returns a stale answer, and the change is made far larger than the tolerance so that
// a stale answer always fails. Host-only, so that the maths is unit-tested without a GPU.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "inputs/host_floats.hpp"

namespace course {

// K: elements rewritten per run. A few are enough (the check is on the result, not on
// which elements moved) and each costs one small copy to the device.
inline constexpr unsigned perturbed_elements = 8;

// Each changed element of a sum moves by a random amount in
// [shift_low, shift_high) shift units (shift_unit below), always upwards.
inline constexpr double shift_low = 4.0;
inline constexpr double shift_high = 8.0;

// The exact (double) sums of each component of n records of `width` floats: what a
// kernel's float result is judged against, and sum|x|, which sets its tolerance.
struct component_sums {
    std::vector<double> sum, sum_abs;
};
component_sums sum_components(const float* x, std::size_t n, unsigned width);

// One rewritten element: x[index] = value (index counts floats, not records).
struct element_change {
    std::size_t index = 0;
    float value = 0;
};

// The smallest shift worth making for a component of n values with this sum|x|: its
// tolerance (tree_sum_tolerance), but at least the mean |x| (1 for all zeros), because the
// tolerance is 0 for n = 1 and tiny for small n.
double shift_unit(std::size_t n, double sum_abs, double tolerance_c);

// Rewrites k distinct random elements of x (n records of `width` floats): each grows by
// [4, 8) shift units of its own component. Updates `sums` incrementally (in double, from
// the float values actually stored) and returns the changes to copy to the device.
// Upwards only, so every component's sum never decreases and the changed one rises past
// every earlier value by at least 4 units: a result from any earlier run is wrong. With
// non-negative inputs (the timed inputs are uniform in [0, 1)) the sums stay equal to
// sum|x|, perfectly conditioned; they grow by at most 8 * c * K * ceil(log2 n) * 2^-24 of
// themselves per run: 2.9e-4 at n = 2^25 (c = 3, K = 8), 5.5% after 192 runs.
std::vector<element_change> perturb_sums(host_floats& x, std::size_t n, unsigned width, component_sums& sums,
                                         double tolerance_c, std::uint64_t seed,
                                         unsigned k = perturbed_elements);
// The same changes of an input that is not to be written (a cached one): `value_of(i)`
// reads its element i as it stands (with any earlier changes), `count` is its size in
// floats. Updates `sums` and returns the changes; the caller keeps them.
std::vector<element_change> perturb_sums(const std::function<float(std::size_t)>& value_of, std::size_t count,
                                         std::size_t n, unsigned width, component_sums& sums, double tolerance_c,
                                         std::uint64_t seed, unsigned k = perturbed_elements);

// Rewrites k distinct random elements of a matrix to 1 to 2 above their old value: a
// transpose moves data and is checked bit for bit, so any change is detectable.
std::vector<element_change> perturb_elements(host_floats& x, std::uint64_t seed,
                                             unsigned k = perturbed_elements);

// min(how_many, count) distinct values in [0, count): the elements to change, or the
// output rows to check after a transpose.
std::vector<std::size_t> pick_distinct(std::size_t count, std::size_t how_many, std::uint64_t seed);

// The seed of the `run`-th change made from `seed`: every run gets its own.
std::uint64_t run_seed(std::uint64_t seed, std::uint64_t run);

// What the timing event's `recheck` says when a run gave a wrong result. `which` names
// the run ("timed run 7 of 21"), `what` the wrong result ("expected 5, got 4").
std::string wrong_run_message(const std::string& which, const std::string& what);

// Appended to a failed "changed" correctness case whose unchanged twin passed.
std::string changed_case_advice();

}  // namespace course
