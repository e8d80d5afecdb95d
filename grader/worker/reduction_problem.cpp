#include <algorithm>
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
    reduction_problem(std::size_t n, unsigned width, const part* const versions[3], std::uint64_t seed,
                      double tolerance_c)
        : seed_(seed), tolerance_c_(tolerance_c), fixture_(n, largest_scratch(versions, n), width) {
        fixture_.draw(input_kind::random, seed);
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
    void stage_fresh(std::uint64_t seed) override { fixture_.stage(input_kind::random, seed); }
    case_record rerun_fresh(const part& p, std::uint64_t seed) override {
        fixture_.draw(input_kind::random, seed);
        return fixture_.check(p, tolerance_c_);
    }

private:
    std::uint64_t seed_;
    std::uint64_t runs_ = 0;
    double tolerance_c_;
    reduction_fixture fixture_;
};

}  // namespace

std::unique_ptr<problem> make_problem(part_kind kind, const problem_size& size, const part* const versions[3],
                                      std::uint64_t seed, double tolerance_c) {
    switch (kind) {
    case part_kind::reduction: return std::make_unique<reduction_problem>(size.n, 1, versions, seed, tolerance_c);
    case part_kind::record_sums:
        return std::make_unique<reduction_problem>(size.records, versions[2]->record_len, versions, seed,
                                                   tolerance_c);
    case part_kind::transpose: return make_transpose_problem(size.rows, size.cols, seed);
    }
    throw std::invalid_argument(std::string("no timing problem for parts of kind ") + to_string(kind));
}

}  // namespace course
