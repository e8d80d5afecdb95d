#include "worker/reduction_case.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/tolerance.hpp"

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

case_record judge_reduction(const std::string& part_id, reduction_buffers& bufs, const float* host_input,
                            std::size_t n, input_kind kind, double tolerance_c) {
    CUDA_CHECK(cudaDeviceSynchronize());
    const unsigned w = bufs.width;
    std::vector<float> got(w);
    CUDA_CHECK(cudaMemcpy(got.data(), bufs.out.data(), w * sizeof(float), cudaMemcpyDeviceToHost));

    // Per component: the double-precision sum, and the tolerance from its own sum|x|.
    std::vector<double> sum(w, 0.0), sum_abs(w, 0.0);
    if (w == 1) {
        const exact_sum ref = reference_sum(host_input, n);
        sum[0] = ref.sum;
        sum_abs[0] = ref.sum_abs;
    } else {
        for (std::size_t i = 0; i < n; ++i) {
            for (unsigned c = 0; c < w; ++c) {
                const double x = host_input[i * w + c];
                sum[c] += x;
                sum_abs[c] += std::fabs(x);
            }
        }
    }

    case_record rec;
    rec.part = part_id;
    rec.input = to_string(kind);
    rec.size = "n=" + std::to_string(n);
    rec.n = n;
    // Report the worst component: the first wrong one, else the one closest to its limit.
    double worst = -1;
    unsigned worst_c = 0;
    for (unsigned c = 0; c < w; ++c) {
        case_record trial;
        const double tol = sum_is_exact_in_float(is_integer_valued(kind), sum_abs[c])
                               ? 0.0
                               : tree_sum_tolerance(n, sum_abs[c], tolerance_c);
        const double badness = judge_component(trial, got[c], sum[c], tol);
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
    rec.guard_hit = !bufs.out.guards_intact() || !bufs.scratch.guards_intact();
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

case_record check_reduction(const part& p, reduction_buffers& bufs, const float* host_input, std::size_t n,
                            input_kind kind, double tolerance_c) {
    bufs.out.poison();
    bufs.scratch.poison();
    p.reduce(bufs.in.data(), bufs.out.data(), n, bufs.scratch.data());
    return judge_reduction(p.id, bufs, host_input, n, kind, tolerance_c);
}

case_record run_reduction_case(const part& p, input_kind kind, std::size_t n, std::uint64_t run_seed,
                               double tolerance_c) {
    const std::size_t floats = n * p.record_len;
    const std::vector<float> host = make_input(kind, case_seed(run_seed, kind, n), floats);
    reduction_buffers bufs(n, p.shape.scratch_elems(n), p.record_len);
    bufs.in.upload(host.data(), floats);
    return check_reduction(p, bufs, host.data(), n, kind, tolerance_c);
}

}  // namespace course
