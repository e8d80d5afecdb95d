// Reductions: a part sums n elements of record_len floats each (1: a plain sum, lab 1 to
// 4; 8: lab 5's record sums, component by component). The same module serves both kinds,
// "reduction" and "record_sums", each with its own policy block.
#include <algorithm>
#include <functional>
#include <optional>
#include <stdexcept>
#include <vector>

#include "inputs/perturbation.hpp"
#include "worker/case_suite.hpp"
#include "worker/problem_kind.hpp"
#include "worker/reduction_case.hpp"

namespace course {

namespace {

std::size_t count_of(const problem_size& size) {
    if (size.is_shape()) throw std::invalid_argument("a reduction's size is a count, not the shape " + size.word());
    return size.count;
}

// Sizes that also get a "random, changed" case: the largest, where a kernel that
// remembers per-block results saves the most; only a few, as the emulator is slow.
constexpr std::size_t changed_case_sizes = 3;

bool among_largest(const std::vector<problem_size>& sizes, std::size_t n) {
    std::vector<std::size_t> sorted;
    for (const auto& s : sizes) sorted.push_back(count_of(s));
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    sorted.resize(std::min(sorted.size(), changed_case_sizes));
    return std::find(sorted.begin(), sorted.end(), n) != sorted.end();
}

// The random case of size n, then the same buffers again after a few input elements
// were rewritten (and the outputs poisoned): a kernel that remembers its result for an
// input it has seen, keyed on a few of its elements, returns a stale sum there.
void random_and_changed_cases(const part& p, std::size_t n, const std::string& size, case_suite& suite) {
    const correctness_job& job = suite.job();
    std::optional<reduction_fixture> fixture;
    bool placed = false;  // the input is in place with its sums: there is something to change
    bool first_ok = false;
    const std::string random = to_string(input_kind::random);
    suite.run(random, size, n, [&] {
        fixture.emplace(n, p.shape.scratch_elems(n), p.record_len);
        fixture->use(input_kind::random, job.seed, suite.inputs(), job.inputs_on_device);
        placed = true;
        const case_record rec = fixture->check(p, job.tolerance_c);
        first_ok = rec.ok;
        return rec;
    });
    if (!placed) return;
    suite.run(random + ", changed", size, n, [&] {
        fixture->perturb(run_seed(reduction_case_seed(job.seed, input_kind::random, n), 0), job.tolerance_c);
        case_record rec = fixture->check(p, job.tolerance_c);
        if (!rec.ok && first_ok) rec.detail += changed_case_advice();
        return rec;
    });
}

// Reductions and record sums (width = floats per record).
class reduction_problem final : public problem {
public:
    reduction_problem(std::size_t n, unsigned width, std::size_t scratch, double tolerance_c, problem_inputs inputs)
        : seed_(inputs.first.seed), tolerance_c_(tolerance_c), fixture_(n, scratch, width),
          fresh_(std::move(inputs.fresh)) {
        put(std::move(inputs.first));
    }
    std::string label() const override {
        return (fixture_.width() > 1 ? "records=" : "n=") + std::to_string(fixture_.n());
    }
    double bytes() const override { return static_cast<double>(fixture_.n()) * fixture_.width() * sizeof(float); }
    void prepare_run() override {
        fixture_.perturb(run_seed(seed_, runs_++), tolerance_c_);
        fixture_.poison_async();
    }
    void run(const part& p) override { fixture_.run(p); }
    case_record check_run(const part& p) override { return fixture_.judge(p.id, tolerance_c_); }
    case_record check_last(const part& p) override { return fixture_.judge(p.id, tolerance_c_); }
    case_record rerun_fresh(const part& p) override {
        if (fresh_.values.empty() && !fresh_.on_device)
            throw std::logic_error("rerun_fresh: the problem was made without a fresh input");
        put(std::move(fresh_));
        fresh_ = {};
        return fixture_.check(p, tolerance_c_);
    }

private:
    void put(host_input in) {
        if (in.on_device) fixture_.make(input_kind::random, in.seed);
        else fixture_.draw(input_kind::random, std::move(in.values), std::move(in.sums));
    }

    std::uint64_t seed_;
    std::uint64_t runs_ = 0;
    double tolerance_c_;
    reduction_fixture fixture_;
    host_input fresh_;
};

// An input of n elements of `width` floats from `seed`, with its sums.
host_input reduction_input(std::size_t n, unsigned width, std::uint64_t seed) {
    host_input in;
    in.seed = seed;
    in.values = make_input(input_kind::random, seed, n * width);
    in.sums = sum_components(in.values.data(), n, width);
    return in;
}

class reduction_kind final : public problem_kind {
public:
    void prepare_cases(const part& p, const kind_cases& cases, case_suite& suite) const override {
        const correctness_job& job = suite.job();
        if (job.inputs_on_device) return;  // each case makes its own on the device
        const auto make = [&](input_kind kind, std::size_t n) {
            (void)suite.inputs().sums(kind, reduction_case_seed(job.seed, kind, n), n, p.record_len);
        };
        for (const auto kind : job.inputs)
            for (const auto& size : cases.sizes) make(kind, count_of(size));
        for (const auto& size : cases.large) make(input_kind::random, count_of(size));
    }

    // Every input kind at every size (the largest random ones with their changed case),
    // then one random case at each large size.
    void run_cases(const part& p, const kind_cases& cases, case_suite& suite) const override {
        const correctness_job& job = suite.job();
        for (const auto kind : job.inputs) {
            for (const auto& size : cases.sizes) {
                const std::size_t n = count_of(size);
                if (kind == input_kind::random && among_largest(cases.sizes, n)) {
                    random_and_changed_cases(p, n, size.word(), suite);
                    continue;
                }
                suite.run(to_string(kind), size.word(), n, [&] {
                    return run_reduction_case(p, kind, n, job.seed, job.tolerance_c, suite.inputs(),
                                              job.inputs_on_device);
                });
            }
        }
        for (const auto& size : cases.large) {
            const std::size_t n = count_of(size);
            suite.run(to_string(input_kind::random), size.word(), n, [&] {
                return run_reduction_case(p, input_kind::random, n, job.seed, job.tolerance_c, suite.inputs(),
                                          job.inputs_on_device);
            });
        }
    }

    std::uint64_t input_floats(const part& p, const problem_size& size) const override {
        return count_of(size) * p.record_len;
    }

    problem_inputs make_inputs(const part& p, const problem_size& size, std::uint64_t seed,
                               std::optional<std::uint64_t> fresh_seed, bool on_device) const override {
        const auto input = [&](std::uint64_t s) {
            if (!on_device) return reduction_input(count_of(size), p.record_len, s);
            host_input named;
            named.seed = s;
            named.on_device = true;
            return named;
        };
        problem_inputs in;
        in.first = input(seed);
        if (fresh_seed) in.fresh = input(*fresh_seed);
        return in;
    }

    std::unique_ptr<problem> make_problem(const part* const versions[3], const problem_size& size,
                                          double tolerance_c, problem_inputs inputs) const override {
        const std::size_t n = count_of(size);
        std::size_t scratch = 0;
        for (int i = 0; i < 3; ++i) scratch = std::max(scratch, versions[i]->shape.scratch_elems(n));
        return std::make_unique<reduction_problem>(n, versions[2]->record_len, scratch, tolerance_c,
                                                   std::move(inputs));
    }
};

COURSE_PROBLEM_KIND("reduction", reduction_kind);
COURSE_PROBLEM_KIND("record_sums", reduction_kind);

}  // namespace

}  // namespace course
