#include "inputs/perturbation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "inputs/inputs.hpp"
#include "inputs/tolerance.hpp"

namespace course {

namespace {

// A stream of random 64-bit values: the course's input hash (case_seed, splitmix64) of
// (seed, counter), so that the changes are as reproducible from --seed as the inputs.
class draws {
public:
    explicit draws(std::uint64_t seed) : seed_(seed) {}
    std::uint64_t next() { return case_seed(seed_, input_kind::random, counter_++); }
    double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }  // [0, 1)

private:
    std::uint64_t seed_;
    std::uint64_t counter_ = 0;
};

}  // namespace

component_sums sum_components(const float* x, std::size_t n, unsigned width) {
    component_sums s;
    s.sum.assign(width, 0.0);
    s.sum_abs.assign(width, 0.0);
    if (width == 1) {
        const exact_sum ref = reference_sum(x, n);  // multi-threaded: n is 2^25 when timing
        s.sum[0] = ref.sum;
        s.sum_abs[0] = ref.sum_abs;
        return s;
    }
    for (std::size_t i = 0; i < n; ++i) {
        for (unsigned c = 0; c < width; ++c) {
            const double v = x[i * width + c];
            s.sum[c] += v;
            s.sum_abs[c] += std::fabs(v);
        }
    }
    return s;
}

double shift_unit(std::size_t n, double sum_abs, double tolerance_c) {
    const double mean_abs = n > 0 && sum_abs > 0 ? sum_abs / static_cast<double>(n) : 1.0;
    return std::max(tree_sum_tolerance(n, sum_abs, tolerance_c), mean_abs);
}

std::vector<std::size_t> pick_distinct(std::size_t count, std::size_t how_many, std::uint64_t seed) {
    draws d(seed);
    std::vector<std::size_t> out;
    if (how_many * 2 >= count) {
        // Few values to choose from: a partial Fisher-Yates shuffle, which cannot loop.
        std::vector<std::size_t> all(count);
        std::iota(all.begin(), all.end(), std::size_t{0});
        const std::size_t m = std::min(how_many, count);
        for (std::size_t i = 0; i < m; ++i) std::swap(all[i], all[i + d.next() % (count - i)]);
        all.resize(m);
        return all;
    }
    while (out.size() < how_many) {
        const std::size_t v = d.next() % count;
        if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
    return out;
}

std::vector<element_change> perturb_sums(const std::function<float(std::size_t)>& value_of, std::size_t count,
                                         std::size_t n, unsigned width, component_sums& sums, double tolerance_c,
                                         std::uint64_t seed, unsigned k) {
    draws d(seed);
    count = std::min(count, n * width);
    std::vector<element_change> changes;
    for (const std::size_t i : pick_distinct(count, k, d.next())) {
        const unsigned c = static_cast<unsigned>(i % width);
        const double unit = shift_unit(n, sums.sum_abs[c], tolerance_c);
        const float old = value_of(i);
        const float now = static_cast<float>(old + unit * (shift_low + (shift_high - shift_low) * d.unit()));
        // The differences of the stored floats, exact in double: no drift over many runs.
        sums.sum[c] += static_cast<double>(now) - static_cast<double>(old);
        sums.sum_abs[c] += std::fabs(static_cast<double>(now)) - std::fabs(static_cast<double>(old));
        changes.push_back({i, now});
    }
    return changes;
}

std::vector<element_change> perturb_sums(host_floats& x, std::size_t n, unsigned width, component_sums& sums,
                                         double tolerance_c, std::uint64_t seed, unsigned k) {
    // The elements changed are distinct, so each is read before any is written.
    const auto changes =
        perturb_sums([&](std::size_t i) { return x[i]; }, x.size(), n, width, sums, tolerance_c, seed, k);
    for (const auto& c : changes) x[c.index] = c.value;
    return changes;
}

std::vector<element_change> perturb_elements(host_floats& x, std::uint64_t seed, unsigned k) {
    draws d(seed);
    std::vector<element_change> changes;
    for (const std::size_t i : pick_distinct(x.size(), k, d.next())) {
        x[i] = static_cast<float>(x[i] + 1.0 + d.unit());
        changes.push_back({i, x[i]});
    }
    return changes;
}

std::uint64_t run_seed(std::uint64_t seed, std::uint64_t run) {
    return case_seed(seed, input_kind::random, ~run);  // ~run: not the counters `draws` uses
}

std::string wrong_run_message(const std::string& which, const std::string& what) {
    return which + " gave a wrong result (" + what +
           "): the grader changes a few input elements and poisons the outputs before every run, so a kernel "
           "must compute every call from its input";
}

std::string changed_case_advice() {
    return "; the same buffers gave the right result before a few input elements were changed: compute every "
           "call from the input, do not reuse a result from an earlier call";
}

}  // namespace course
