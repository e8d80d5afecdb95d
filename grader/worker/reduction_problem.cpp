#include <algorithm>
#include <stdexcept>
#include <vector>

#include "worker/problem.hpp"
#include "worker/reduction_case.hpp"

namespace course {

namespace {

std::size_t largest_scratch(const part* const versions[3], std::size_t n) {
    std::size_t most = 0;
    for (int i = 0; i < 3; ++i) most = std::max(most, versions[i]->shape.scratch_elems(n));
    return most;
}

// Reductions and lab 5's record sums (width = floats per record).
class reduction_problem final : public problem {
public:
    reduction_problem(std::size_t n, unsigned width, const part* const versions[3], double tolerance_c,
                      problem_inputs inputs)
        : seed_(inputs.first.seed), tolerance_c_(tolerance_c), fixture_(n, largest_scratch(versions, n), width),
          fresh_(std::move(inputs.fresh)) {
        fixture_.draw(input_kind::random, std::move(inputs.first.values), std::move(inputs.first.sums));
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
        if (fresh_.values.empty()) throw std::logic_error("rerun_fresh: the problem was made without a fresh input");
        fixture_.draw(input_kind::random, std::move(fresh_.values), std::move(fresh_.sums));
        fresh_ = {};
        return fixture_.check(p, tolerance_c_);
    }

private:
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

}  // namespace

problem_inputs make_problem_inputs(part_kind kind, const problem_size& size, unsigned record_len, std::uint64_t seed,
                                   std::optional<std::uint64_t> fresh_seed) {
    problem_inputs in;
    const auto make = [&](std::uint64_t s) {
        switch (kind) {
        case part_kind::reduction: return reduction_input(size.n, 1, s);
        case part_kind::record_sums: return reduction_input(size.records, record_len, s);
        case part_kind::transpose: {
            host_input matrix;
            matrix.seed = s;
            matrix.values = make_input(input_kind::random, s, std::size_t{size.rows} * size.cols);
            return matrix;
        }
        }
        throw std::invalid_argument(std::string("no timing problem for parts of kind ") + to_string(kind));
    };
    in.first = make(seed);
    if (fresh_seed) in.fresh = make(*fresh_seed);
    return in;
}

std::unique_ptr<problem> make_problem(part_kind kind, const problem_size& size, const part* const versions[3],
                                      double tolerance_c, problem_inputs inputs) {
    switch (kind) {
    case part_kind::reduction:
        return std::make_unique<reduction_problem>(size.n, 1, versions, tolerance_c, std::move(inputs));
    case part_kind::record_sums:
        return std::make_unique<reduction_problem>(size.records, versions[2]->record_len, versions, tolerance_c,
                                                   std::move(inputs));
    case part_kind::transpose: return make_transpose_problem(size.rows, size.cols, std::move(inputs));
    }
    throw std::invalid_argument(std::string("no timing problem for parts of kind ") + to_string(kind));
}

}  // namespace course
