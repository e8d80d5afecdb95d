// A problem kind that no lab of the course has: out[i] = 2 * in[i]. test_new_kind.py copies
// this file into grader/worker/kinds/ of a copy of the course, the one module a new kind is
// (docs/architecture.md, "Adding a problem kind"); it is compiled only there.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "inputs/inputs.hpp"
#include "worker/case_suite.hpp"
#include "worker/guarded_buffer.hpp"
#include "worker/problem_kind.hpp"

namespace course {

namespace {

std::size_t scale_count(const problem_size& size) {
    if (size.is_shape()) throw std::invalid_argument("a scale's size is a count, not the shape " + size.word());
    return size.count;
}

struct scale_buffers {
    explicit scale_buffers(std::size_t n) : in(n, "input"), out(n, "output") {}
    guarded_buffer in, out;
};

void run_scale(const part& p, scale_buffers& bufs) {
    launch_args a;
    a.in = bufs.in.data();
    a.out = bufs.out.data();
    a.n = bufs.in.size();
    p.launch(a);
}

// Every element exactly twice its input: doubling a float never rounds.
case_record judge_scale(const std::string& part_id, scale_buffers& bufs, const host_floats& host) {
    case_record rec;
    rec.part = part_id;
    rec.ok = true;
    std::vector<float> got(host.size());
    if (!got.empty()) bufs.out.read(0, got.data(), got.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (got[i] == 2.0f * host[i]) continue;
        std::uint32_t bits = 0;
        std::memcpy(&bits, &got[i], sizeof bits);
        rec.ok = false;
        rec.expected = 2.0f * host[i];
        rec.got = got[i];
        rec.untouched = bits == poison_bits;
        rec.detail = "out[" + std::to_string(i) + "] " +
                     (rec.untouched ? "was never written" : "is not twice in[" + std::to_string(i) + "]");
        return rec;
    }
    if (!bufs.out.guards_intact()) {
        rec.ok = false;
        rec.guard_hit = true;
        rec.detail = "the kernel wrote past the end of out";
    }
    return rec;
}

class scale_problem final : public problem {
public:
    scale_problem(std::size_t n, problem_inputs inputs)
        : bufs_(n), host_(std::move(inputs.first.values)), fresh_(std::move(inputs.fresh.values)) {
        bufs_.in.upload(host_.data(), host_.size());
    }
    std::string label() const override { return "n=" + std::to_string(bufs_.in.size()); }
    double bytes() const override { return 2.0 * bufs_.in.size() * sizeof(float); }
    void prepare_run() override { bufs_.out.poison_async(); }
    void run(const part& p) override { run_scale(p, bufs_); }
    case_record check_run(const part& p) override { return judge_scale(p.id, bufs_, host_); }
    case_record check_last(const part& p) override { return judge_scale(p.id, bufs_, host_); }
    case_record rerun_fresh(const part& p) override {
        if (fresh_.empty()) throw std::logic_error("rerun_fresh: the problem was made without a fresh input");
        host_ = std::move(fresh_);
        fresh_ = {};
        bufs_.in.upload(host_.data(), host_.size());
        bufs_.out.poison();
        run(p);
        return judge_scale(p.id, bufs_, host_);
    }

private:
    scale_buffers bufs_;
    host_floats host_, fresh_;
};

std::uint64_t scale_case_seed(std::uint64_t seed, std::size_t n) { return case_seed(seed, input_kind::random, n); }

// One random case at each size.
class scale_kind final : public problem_kind {
public:
    void prepare_cases(const part&, const kind_cases& cases, case_suite& suite) const override {
        for (const auto& size : cases.sizes) {
            const std::size_t n = scale_count(size);
            (void)suite.inputs().values(input_kind::random, scale_case_seed(suite.job().seed, n), n);
        }
    }
    void run_cases(const part& p, const kind_cases& cases, case_suite& suite) const override {
        for (const auto& size : cases.sizes) {
            const std::size_t n = scale_count(size);
            suite.run(to_string(input_kind::random), size.word(), n, [&] {
                const host_floats& host =
                    suite.inputs().values(input_kind::random, scale_case_seed(suite.job().seed, n), n);
                scale_buffers bufs(n);
                bufs.in.upload(host.data(), n);
                bufs.out.poison();
                run_scale(p, bufs);
                return judge_scale(p.id, bufs, host);
            });
        }
    }
    std::uint64_t input_floats(const part&, const problem_size& size) const override { return scale_count(size); }
    problem_inputs make_inputs(const part&, const problem_size& size, std::uint64_t seed,
                               std::optional<std::uint64_t> fresh_seed, bool) const override {
        problem_inputs in;
        in.first.seed = seed;
        in.first.values = make_input(input_kind::random, seed, scale_count(size));
        if (fresh_seed) in.fresh.values = make_input(input_kind::random, *fresh_seed, scale_count(size));
        return in;
    }
    std::unique_ptr<problem> make_problem(const part* const[3], const problem_size& size, double,
                                          problem_inputs inputs) const override {
        return std::make_unique<scale_problem>(scale_count(size), std::move(inputs));
    }
};

COURSE_PROBLEM_KIND("scale", scale_kind);

}  // namespace

}  // namespace course
