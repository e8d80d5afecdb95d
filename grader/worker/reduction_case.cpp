#include "worker/reduction_case.hpp"

#include <cmath>
#include <cstring>
#include <vector>

#include "core/tolerance.hpp"

namespace course {

reduction_buffers::reduction_buffers(std::size_t n, std::size_t scratch_elems)
    : in(n, "input"), out(1, "output"), scratch(scratch_elems, "partial sums") {}

case_record judge_reduction(const std::string& part_id, reduction_buffers& bufs, const float* host_input,
                            std::size_t n, input_kind kind, double tolerance_c) {
    case_record rec;
    rec.part = part_id;
    rec.input = to_string(kind);
    rec.size = "n=" + std::to_string(n);
    rec.n = n;

    const exact_sum ref = reference_sum(host_input, n);
    rec.expected = ref.sum;
    rec.tolerance = sum_is_exact_in_float(is_integer_valued(kind), ref.sum_abs)
                        ? 0.0
                        : tree_sum_tolerance(n, ref.sum_abs, tolerance_c);

    CUDA_CHECK(cudaDeviceSynchronize());
    float got = 0;
    CUDA_CHECK(cudaMemcpy(&got, bufs.out.data(), sizeof(float), cudaMemcpyDeviceToHost));
    std::uint32_t bits = 0;
    std::memcpy(&bits, &got, sizeof bits);
    rec.got = got;
    rec.untouched = bits == poison_bits;
    rec.guard_hit = !bufs.out.guards_intact() || !bufs.scratch.guards_intact();
    rec.ok = !rec.untouched && !rec.guard_hit && within_tolerance(rec.expected, got, rec.tolerance);
    if (rec.untouched) {
        rec.detail = "the output still holds the poison value: the last pass never wrote out[0]";
    } else if (rec.guard_hit) {
        rec.detail = "a guard word past the end of an output or partial-sum buffer was overwritten";
    } else if (std::isnan(got)) {
        rec.detail = "NaN: the input is followed by NaN guard words, so a thread read past in[n-1]";
    } else if (!rec.ok) {
        rec.detail = rec.tolerance == 0 ? "this input must be summed exactly"
                                        : "off by " + std::to_string(std::fabs(got - rec.expected));
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
    const std::vector<float> host = make_input(kind, case_seed(run_seed, kind, n), n);
    reduction_buffers bufs(n, p.shape.scratch_elems(n));
    bufs.in.upload(host.data(), n);
    return check_reduction(p, bufs, host.data(), n, kind, tolerance_c);
}

}  // namespace course
