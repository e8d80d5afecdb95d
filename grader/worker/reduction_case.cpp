#include "worker/reduction_case.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "inputs/input_element.hpp"
#include "inputs/tolerance.hpp"
#include "worker/input_maker.hpp"

namespace course {

reduction_buffers::reduction_buffers(std::size_t n, std::size_t scratch_elems, unsigned w)
    : width(w), in(n * w, "input"), out(w, "output"), scratch(scratch_elems * w, "partial sums") {}

namespace {

// Judges one component: sets rec's numbers and verdict, returns how far off it is in
// units of its tolerance (infinity for a wrong exact or a NaN).
double judge_component(case_record& rec, float got, double expected, double tolerance) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &got, sizeof bits);
    rec.expected = expected;
    rec.got = got;
    rec.tolerance = tolerance;
    rec.untouched = bits == poison_bits;
    rec.ok = !rec.untouched && within_tolerance(expected, got, tolerance);
    if (rec.ok) return tolerance > 0 ? std::fabs(got - expected) / tolerance : 0.0;
    return std::numeric_limits<double>::infinity();
}

}  // namespace

reduction_fixture::reduction_fixture(std::size_t n, std::size_t scratch_elems, unsigned width)
    : n_(n), bufs_(n, scratch_elems, width) {}

namespace {

void require_size(const host_floats& values, std::size_t n, unsigned width) {
    if (values.size() != n * width) throw std::logic_error("reduction_fixture: an input of the wrong size");
}

}  // namespace

void reduction_fixture::start(input_kind kind, component_sums sums) {
    kind_ = kind;
    changed_ = false;
    host_ = {};
    cached_ = nullptr;
    made_.reset();
    cached_changes_.clear();
    sums_ = std::move(sums);
}

void reduction_fixture::draw(input_kind kind, host_floats values, component_sums sums) {
    require_size(values, n_, bufs_.width);
    start(kind, std::move(sums));
    host_ = std::move(values);
    bufs_.in.upload(host_.data(), host_.size());
}

void reduction_fixture::use(input_kind kind, std::uint64_t run_seed, input_cache& inputs, bool on_device) {
    const std::uint64_t seed = reduction_case_seed(run_seed, kind, n_);
    if (on_device) {
        make(kind, seed);
        return;
    }
    const host_floats& values = inputs.values(kind, seed, n_ * bufs_.width);
    require_size(values, n_, bufs_.width);
    start(kind, inputs.sums(kind, seed, n_, bufs_.width));
    cached_ = &values;
    bufs_.in.upload(values.data(), values.size());
}

void reduction_fixture::make(input_kind kind, std::uint64_t seed) {
    start(kind, bufs_.in.make(kind, seed, n_, bufs_.width));  // made first: it may throw
    made_ = seed;
}

void reduction_fixture::perturb(std::uint64_t seed, double tolerance_c) {
    std::vector<element_change> changes;
    if (cached_ != nullptr || made_) {
        const std::uint64_t stream = made_ ? element::stream_of(*made_) : 0;
        const auto value_of = [&](std::size_t i) {
            for (auto it = cached_changes_.rbegin(); it != cached_changes_.rend(); ++it)
                if (it->index == i) return it->value;
            return made_ ? element::value(kind_, stream, i) : (*cached_)[i];
        };
        changes = perturb_sums(value_of, n_ * bufs_.width, n_, bufs_.width, sums_, tolerance_c, seed);
        cached_changes_.insert(cached_changes_.end(), changes.begin(), changes.end());
    } else {
        changes = perturb_sums(host_, n_, bufs_.width, sums_, tolerance_c, seed);
    }
    for (const auto& c : changes) bufs_.in.set(c.index, c.value);
    changed_ = true;
}

void reduction_fixture::poison_async() {
    bufs_.out.poison_async();
    bufs_.scratch.poison_async();
}

void reduction_fixture::run(const part& p) {
    launch_args a;
    a.in = bufs_.in.data();
    a.out = bufs_.out.data();
    a.scratch = bufs_.scratch.data();
    a.n = n_;
    p.launch(a);
}

case_record reduction_fixture::judge(const std::string& part_id, double tolerance_c) {
    // Everything the judging reads comes back in one synchronisation: out with its guard
    // words, then the guard words of scratch.
    const unsigned w = bufs_.width;
    float* back = readback_words(w + 2 * guard_words);
    bufs_.out.queue_read_all(back);
    bufs_.scratch.queue_read_guards(back + w + guard_words);
    CUDA_CHECK(cudaDeviceSynchronize());
    const float* got = back;

    case_record rec;
    rec.part = part_id;
    rec.input = to_string(kind_);
    rec.size = "n=" + std::to_string(n_);
    rec.n = n_;
    const bool integer_valued = is_integer_valued(kind_) && !changed_;
    // Report the worst component: the first wrong one, else the one closest to its limit.
    double worst = -1;
    unsigned worst_c = 0;
    for (unsigned c = 0; c < w; ++c) {
        case_record trial;
        const double tol = sum_is_exact_in_float(integer_valued, sums_.sum_abs[c])
                               ? 0.0
                               : tree_sum_tolerance(n_, sums_.sum_abs[c], tolerance_c);
        const double badness = judge_component(trial, got[c], sums_.sum[c], tol);
        if (badness > worst) {
            worst = badness;
            worst_c = c;
            rec.expected = trial.expected;
            rec.got = trial.got;
            rec.tolerance = trial.tolerance;
            rec.untouched = trial.untouched;
            rec.ok = trial.ok;
        }
    }
    rec.guard_hit = !guards_match(back + w) || !guards_match(back + w + guard_words);
    rec.ok = rec.ok && !rec.guard_hit;
    const std::string which = w > 1 ? "component " + std::to_string(worst_c) + ": " : "";
    if (rec.guard_hit) {
        rec.detail = "a guard word past the end of an output or partial-sum buffer was overwritten";
    } else if (rec.untouched) {
        rec.detail = which + "the output still holds the poison value: the last pass never wrote it";
    } else if (std::isnan(rec.got)) {
        rec.detail = which + "NaN: the input is followed by NaN guard words, so a thread read past the end";
    } else if (!rec.ok) {
        rec.detail = which + (rec.tolerance == 0 ? "this input must be summed exactly"
                                                 : "off by " + std::to_string(std::fabs(rec.got - rec.expected)));
    }
    return rec;
}

case_record reduction_fixture::check(const part& p, double tolerance_c) {
    bufs_.out.poison();
    bufs_.scratch.poison();
    run(p);
    return judge(p.id, tolerance_c);
}

std::uint64_t reduction_case_seed(std::uint64_t run_seed, input_kind kind, std::size_t n) {
    return case_seed(run_seed, kind, n);
}

case_record run_reduction_case(const part& p, input_kind kind, std::size_t n, std::uint64_t run_seed,
                               double tolerance_c, input_cache& inputs, bool on_device) {
    reduction_fixture fixture(n, p.shape.scratch_elems(n), p.record_len);
    fixture.use(kind, run_seed, inputs, on_device);
    return fixture.check(p, tolerance_c);
}

}  // namespace course
