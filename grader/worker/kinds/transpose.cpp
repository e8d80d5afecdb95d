// Transposes: a part writes out (cols x rows), the transpose of in (rows x cols). Sizes are
// shapes; every case runs with random values and with each element's own index.
#include <stdexcept>
#include <vector>

#include "inputs/perturbation.hpp"
#include "worker/case_suite.hpp"
#include "worker/problem_kind.hpp"
#include "worker/transpose_case.hpp"

namespace course {

namespace {

// Random values, and each element's own index: with the index, a wrong element says
// exactly where it came from. Both kinds of a shape one after the other: a value a
// kernel leaves behind in shared memory is then one of the other kind (indices are
// integers, random values are not), which the failure message recognises as stale.
constexpr input_kind transpose_inputs[] = {input_kind::random, input_kind::index};

const problem_size& shape_of(const problem_size& size) {
    if (!size.is_shape()) throw std::invalid_argument("a transpose's size is a shape ROWSxCOLS, not " + size.word());
    return size;
}

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
    void run(const part& p) override { run_transpose(p, bufs_); }
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

// Every shape with both inputs, then one random case at each large shape.
class transpose_kind final : public problem_kind {
public:
    void prepare_cases(const part&, const kind_cases& cases, case_suite& suite) const override {
        for (const auto& size : cases.sizes) {
            const problem_size& s = shape_of(size);
            for (const auto kind : transpose_inputs)
                (void)suite.inputs().values(kind, transpose_case_seed(suite.job().seed, kind, s.rows, s.cols),
                                            s.elements());
        }
        for (const auto& size : cases.large) {
            const problem_size& s = shape_of(size);
            (void)suite.inputs().values(input_kind::random,
                                        transpose_case_seed(suite.job().seed, input_kind::random, s.rows, s.cols),
                                        s.elements());
        }
    }

    void run_cases(const part& p, const kind_cases& cases, case_suite& suite) const override {
        for (const auto& size : cases.sizes) {
            const problem_size& s = shape_of(size);
            for (const auto kind : transpose_inputs)
                suite.run(to_string(kind), s.word(), s.elements(), [&] {
                    return run_transpose_case(p, kind, s.rows, s.cols, suite.job().seed, suite.inputs());
                });
        }
        for (const auto& size : cases.large) {
            const problem_size& s = shape_of(size);
            suite.run(to_string(input_kind::random), s.word(), s.elements(), [&] {
                return run_transpose_case(p, input_kind::random, s.rows, s.cols, suite.job().seed, suite.inputs());
            });
        }
    }

    std::uint64_t input_floats(const part&, const problem_size& size) const override {
        return shape_of(size).elements();
    }

    // Always on the host: a check reads the whole input back (check_last).
    problem_inputs make_inputs(const part&, const problem_size& size, std::uint64_t seed,
                               std::optional<std::uint64_t> fresh_seed, bool) const override {
        const auto matrix = [&](std::uint64_t s) {
            host_input in;
            in.seed = s;
            in.values = make_input(input_kind::random, s, shape_of(size).elements());
            return in;
        };
        problem_inputs in;
        in.first = matrix(seed);
        if (fresh_seed) in.fresh = matrix(*fresh_seed);
        return in;
    }

    std::unique_ptr<problem> make_problem(const part* const[3], const problem_size& size, double,
                                          problem_inputs inputs) const override {
        const problem_size& s = shape_of(size);
        return std::make_unique<transpose_problem>(s.rows, s.cols, std::move(inputs));
    }
};

COURSE_PROBLEM_KIND("transpose", transpose_kind);

}  // namespace

}  // namespace course
