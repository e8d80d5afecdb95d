#include <optional>
#include <vector>

#include "core/perturbation.hpp"
#include "worker/problem.hpp"
#include "worker/transpose_case.hpp"

namespace course {

namespace {

// Whole output rows checked after each timed run, besides the changed elements: they
// catch a kernel that writes only part of the output (8192 x 4 bytes each at 8192^2).
constexpr std::size_t checked_rows = 2;

class transpose_problem final : public problem {
public:
    transpose_problem(unsigned rows, unsigned cols, std::uint64_t seed) : seed_(seed), bufs_(rows, cols) {
        draw(seed);
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
    void stage_fresh(std::uint64_t seed) override {
        staged_ = make_input(input_kind::random, seed, std::size_t{bufs_.rows} * bufs_.cols);
        staged_seed_ = seed;
    }
    case_record rerun_fresh(const part& p, std::uint64_t seed) override {
        draw(seed);
        bufs_.out.poison();
        run(p);
        return judge_transpose(p.id, bufs_, host_, input_kind::random);
    }

private:
    void draw(std::uint64_t seed) {
        if (staged_seed_ == seed && !staged_.empty()) {
            host_ = std::move(staged_);
        } else {
            host_ = make_input(input_kind::random, seed, std::size_t{bufs_.rows} * bufs_.cols);
        }
        staged_ = {};
        staged_seed_.reset();
        bufs_.in.upload(host_.data(), host_.size());
    }
    std::uint64_t seed_;
    std::uint64_t runs_ = 0;
    transpose_buffers bufs_;
    host_floats host_;
    host_floats staged_;                       // stage_fresh()'s input, made ahead
    std::optional<std::uint64_t> staged_seed_;
    std::vector<std::size_t> changed_;  // input elements the last prepare_run() rewrote
};

}  // namespace

std::unique_ptr<problem> make_transpose_problem(unsigned rows, unsigned cols, std::uint64_t seed) {
    return std::make_unique<transpose_problem>(rows, cols, seed);
}

}  // namespace course
