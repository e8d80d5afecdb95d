#include <vector>

#include "worker/problem.hpp"
#include "worker/transpose_case.hpp"

namespace course {

namespace {

class transpose_problem final : public problem {
public:
    transpose_problem(unsigned rows, unsigned cols, std::uint64_t seed) : bufs_(rows, cols) { draw(seed); }
    std::string label() const override { return std::to_string(bufs_.rows) + "x" + std::to_string(bufs_.cols); }
    // Every element is read once and written once.
    double bytes() const override { return 2.0 * bufs_.rows * bufs_.cols * sizeof(float); }
    void run(const part& p) override { p.transpose(bufs_.in.data(), bufs_.out.data(), bufs_.rows, bufs_.cols); }
    case_record check_last(const part& p) override { return judge_transpose(p.id, bufs_, host_, input_kind::random); }
    case_record rerun_fresh(const part& p, std::uint64_t seed) override {
        draw(seed);
        bufs_.out.poison();
        run(p);
        return judge_transpose(p.id, bufs_, host_, input_kind::random);
    }

private:
    void draw(std::uint64_t seed) {
        host_ = make_input(input_kind::random, seed, std::size_t{bufs_.rows} * bufs_.cols);
        bufs_.in.upload(host_.data(), host_.size());
    }
    transpose_buffers bufs_;
    std::vector<float> host_;
};

}  // namespace

std::unique_ptr<problem> make_transpose_problem(unsigned rows, unsigned cols, std::uint64_t seed) {
    return std::make_unique<transpose_problem>(rows, cols, seed);
}

}  // namespace course
