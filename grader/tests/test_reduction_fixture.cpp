// A reduction case's fixture on the CPU emulator, whose device memory the host can touch:
// a case that copies its input from the worker's device copy (device_inputs) is judged as
// one that uploads it, a kernel sees only its own case's copy, and everything the judging
// reads (the result, the guard words of out and scratch) comes back in one go.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include "inputs/input_cache.hpp"
#include "worker/device_inputs.hpp"
#include "worker/reduction_case.hpp"

namespace {

using course::input_kind;

constexpr std::uint64_t seed = 20261205;
constexpr double tolerance_c = 3.0;

course::part host_part(std::function<void(const course::launch_args&, std::size_t scratch)> body) {
    course::part p;
    p.id = "A";
    p.kind = "reduction";
    p.launch = [body = std::move(body), shape = p.shape](const course::launch_args& a) {
        body(a, shape.scratch_elems(a.n));
    };
    return p;
}

// The sum of in[0..count) in double, as no kernel would, but well within any tolerance.
float host_sum(const float* in, std::size_t count) {
    double s = 0;
    for (std::size_t i = 0; i < count; ++i) s += in[i];
    return static_cast<float>(s);
}

course::part honest() {
    return host_part([](const course::launch_args& a, std::size_t) { a.out[0] = host_sum(a.in, a.n); });
}

course::case_record one_case(const course::part& p, input_kind kind, std::size_t n, course::input_cache& inputs,
                             course::device_inputs* on_device) {
    return course::run_reduction_case(p, kind, n, seed, tolerance_c, inputs, on_device);
}

}  // namespace

TEST_CASE("fixture: a case copied from the kept device input is judged as an uploaded one") {
    course::input_cache inputs;
    course::device_inputs kept(true), not_kept(false);
    for (const auto kind : {input_kind::random, input_kind::ones, input_kind::integers, input_kind::cancellation}) {
        for (const std::size_t n : {1, 33, 4097}) {
            const auto a = one_case(honest(), kind, n, inputs, &kept);
            const auto b = one_case(honest(), kind, n, inputs, &not_kept);
            const auto c = one_case(honest(), kind, n, inputs, nullptr);
            CHECK(a.ok);
            CHECK(a.detail == "");
            CHECK(a.got == b.got);
            CHECK(a.got == c.got);
            CHECK(a.expected == b.expected);
            CHECK(a.tolerance == b.tolerance);
        }
    }
    const auto& values = inputs.values(input_kind::random, course::reduction_case_seed(seed, input_kind::random, 33), 33);
    const float* copy = kept.find(values);
    REQUIRE(copy != nullptr);
    CHECK(kept.find(values) == copy);  // uploaded once, for every part that draws it
    CHECK(not_kept.find(values) == nullptr);
    CHECK(kept.keeps());
    CHECK_FALSE(not_kept.keeps());
}

TEST_CASE("fixture: a kernel that writes into its input changes only its own case's copy") {
    course::input_cache inputs;
    course::device_inputs kept(true);
    const auto vandal = host_part([](const course::launch_args& a, std::size_t) {
        const_cast<float*>(a.in)[0] = 1.0e9f;
        a.out[0] = 0;
    });
    CHECK_FALSE(one_case(vandal, input_kind::integers, 4097, inputs, &kept).ok);
    const auto rec = one_case(honest(), input_kind::integers, 4097, inputs, &kept);
    CHECK(rec.ok);
    CHECK(rec.tolerance == 0.0);  // integers are judged exactly
}

TEST_CASE("fixture: the result, the output's guards and the partial sums' guards all reach the verdict") {
    course::input_cache inputs;
    course::device_inputs kept(true);
    const std::size_t n = 4097;

    const auto silent = host_part([](const course::launch_args&, std::size_t) {});
    const auto untouched = one_case(silent, input_kind::random, n, inputs, &kept);
    CHECK_FALSE(untouched.ok);
    CHECK(untouched.untouched);
    CHECK(untouched.detail == "the output still holds the poison value: the last pass never wrote it");

    const auto past_out = host_part([](const course::launch_args& a, std::size_t) {
        a.out[0] = host_sum(a.in, a.n);
        a.out[1] = 0;  // one float past the one the kernel was given
    });
    const auto out_hit = one_case(past_out, input_kind::random, n, inputs, &kept);
    CHECK_FALSE(out_hit.ok);
    CHECK(out_hit.guard_hit);

    const auto past_scratch = host_part([](const course::launch_args& a, std::size_t scratch) {
        a.out[0] = host_sum(a.in, a.n);
        a.scratch[scratch + 63] = 0;  // the last guard word of the partial sums
    });
    const auto scratch_hit = one_case(past_scratch, input_kind::random, n, inputs, &kept);
    CHECK_FALSE(scratch_hit.ok);
    CHECK(scratch_hit.guard_hit);
    CHECK(scratch_hit.detail == "a guard word past the end of an output or partial-sum buffer was overwritten");

    const auto past_in = host_part([](const course::launch_args& a, std::size_t) {
        a.out[0] = host_sum(a.in, a.n + 1);  // one element too many
    });
    const auto nan = one_case(past_in, input_kind::random, n, inputs, &kept);
    CHECK_FALSE(nan.ok);
    CHECK(std::isnan(nan.got));
}

TEST_CASE("fixture: a changed input after a copied one: a remembered result fails, the kept copy stays as drawn") {
    course::input_cache inputs;
    course::device_inputs kept(true);
    const std::size_t n = 4097;
    float remembered = NAN;
    const auto memo = host_part([&remembered](const course::launch_args& a, std::size_t) {
        if (std::isnan(remembered)) remembered = host_sum(a.in, a.n);
        a.out[0] = remembered;
    });
    for (const bool cheat : {false, true}) {
        course::reduction_fixture f(n, memo.shape.scratch_elems(n), 1);
        f.use(input_kind::random, seed, inputs, &kept);
        const course::part& p = cheat ? memo : honest();
        CHECK(f.check(p, tolerance_c).ok);
        f.perturb(11, tolerance_c);
        CHECK(f.check(p, tolerance_c).ok == !cheat);
    }
    // The changes went to the fixture's own buffer, not to the kept copy.
    CHECK(one_case(honest(), input_kind::random, n, inputs, &kept).ok);
}
