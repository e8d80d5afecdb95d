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
        : n_(n), tolerance_c_(tolerance_c), bufs_(n, largest_scratch(versions, n), width) {
        draw(seed);
    }
    std::string label() const override {
        return (bufs_.width > 1 ? "records=" : "n=") + std::to_string(n_);
    }
    double bytes() const override { return static_cast<double>(n_) * bufs_.width * sizeof(float); }
    void run(const part& p) override { p.reduce(bufs_.in.data(), bufs_.out.data(), n_, bufs_.scratch.data()); }
    case_record check_last(const part& p) override {
        return judge_reduction(p.id, bufs_, host_.data(), n_, input_kind::random, tolerance_c_);
    }
    case_record rerun_fresh(const part& p, std::uint64_t seed) override {
        draw(seed);
        return check_reduction(p, bufs_, host_.data(), n_, input_kind::random, tolerance_c_);
    }

private:
    void draw(std::uint64_t seed) {
        host_ = make_input(input_kind::random, seed, n_ * bufs_.width);
        bufs_.in.upload(host_.data(), host_.size());
    }

    std::size_t n_;
    double tolerance_c_;
    reduction_buffers bufs_;
    std::vector<float> host_;
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
