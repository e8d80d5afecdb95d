#include <stdexcept>
#include <vector>

#include "inputs/perturbation.hpp"
#include "worker/problem.hpp"
#include "worker/transpose_case.hpp"

namespace course {

namespace {

// Whole output rows checked after each timed run, besides the changed elements: they
// catch a kernel that writes only part of the output (8192 x 4 bytes each at 8192^2).
constexpr std::size_t checked_rows = 2;

class transpose_problem final : public problem {
public:
    transpose_problem(unsigned rows, unsigned cols, problem_inputs inputs)
        : seed_(inputs.first.seed), bufs_(rows, cols), fresh_(std::move(inputs.fresh.values)) {
        take(std::move(inputs.first.values));
    }
    std::string label() const override { return std::to_string(bufs_.rows) + "x" + std::to_string(bufs_.cols); }
    // Every element is read once and written once.
    double bytes() const override { return 2.0 * bufs_.rows * bufs_.cols * sizeof(float); }
    void prepare_run() override {
        changed_.clear();
        for (const auto& c : perturb_elements(host_, run_seed(seed_, runs_++))) {
            bufs_.in.set(c.index, c.value);
            changed_.push_back(c.index);
        }
        bufs_.out.poison_async();
    }
    void run(const part& p) override { p.transpose(bufs_.in.data(), bufs_.out.data(), bufs_.rows, bufs_.cols); }
    case_record check_run(const part& p) override {
        // Rows drawn only now, after the run, from a stream of their own.
        const auto rows = pick_distinct(bufs_.cols, checked_rows, run_seed(~seed_, runs_));
        return judge_transpose_sample(p.id, bufs_, host_, changed_, rows);
    }
    case_record check_last(const part& p) override { return judge_transpose(p.id, bufs_, host_, input_kind::random); }
    case_record rerun_fresh(const part& p) override {
        if (fresh_.empty()) throw std::logic_error("rerun_fresh: the problem was made without a fresh input");
        take(std::move(fresh_));
        fresh_ = {};
        bufs_.out.poison();
        run(p);
        return judge_transpose(p.id, bufs_, host_, input_kind::random);
    }

private:
    void take(host_floats values) {
        if (values.size() != std::size_t{bufs_.rows} * bufs_.cols)
            throw std::logic_error("transpose_problem: an input of the wrong size");
        host_ = std::move(values);
        bufs_.in.upload(host_.data(), host_.size());
    }
    std::uint64_t seed_;
    std::uint64_t runs_ = 0;
    transpose_buffers bufs_;
    host_floats host_;
    host_floats fresh_;                 // rerun_fresh()'s input, made with the first
    std::vector<std::size_t> changed_;  // input elements the last prepare_run() rewrote
};

}  // namespace

std::unique_ptr<problem> make_transpose_problem(unsigned rows, unsigned cols, problem_inputs inputs) {
    return std::make_unique<transpose_problem>(rows, cols, std::move(inputs));
}

}  // namespace course
