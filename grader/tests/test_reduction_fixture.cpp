// A reduction case's fixture on the CPU emulator, whose device memory the host can touch:
// a case whose input is made in its own buffer (the GPU worker's way, worker/input_maker.hpp;
// here made on the host and copied in) is judged as one drawn from the worker's input cache,
// also once a few elements were changed; a kernel that writes into its input changes only
// its own case; everything the judging reads (the result, the guard words of out and
// scratch) comes back in one go.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include "inputs/input_cache.hpp"
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
                             bool on_device) {
    return course::run_reduction_case(p, kind, n, seed, tolerance_c, inputs, on_device);
}

}  // namespace

TEST_CASE("fixture: a case whose input is made in place is judged as one drawn from the cache") {
    course::input_cache inputs;
    for (const auto kind : {input_kind::random, input_kind::ones, input_kind::integers, input_kind::cancellation}) {
        for (const std::size_t n : {1, 33, 4097}) {
            const auto made = one_case(honest(), kind, n, inputs, true);
            const auto drawn = one_case(honest(), kind, n, inputs, false);
            CHECK(made.ok);
            CHECK(made.detail == "");
            CHECK(made.got == drawn.got);
            CHECK(made.expected == drawn.expected);
            CHECK(made.tolerance == drawn.tolerance);
        }
    }
}

TEST_CASE("fixture: changing elements of a made input moves its sums as it does a drawn one's") {
    course::input_cache inputs;
    const std::size_t n = 4097;
    for (const auto kind : {input_kind::random, input_kind::integers, input_kind::cancellation}) {
        course::reduction_fixture made(n, honest().shape.scratch_elems(n), 1), drawn(n, honest().shape.scratch_elems(n), 1);
        made.use(kind, seed, inputs, true);
        drawn.use(kind, seed, inputs, false);
        for (const std::uint64_t change : {11u, 12u}) {  // the second changes a changed input
            made.perturb(change, tolerance_c);
            drawn.perturb(change, tolerance_c);
            const auto a = made.check(honest(), tolerance_c);
            const auto b = drawn.check(honest(), tolerance_c);
            CHECK(a.ok);
            CHECK(a.expected == b.expected);
            CHECK(a.got == b.got);
        }
    }
}

TEST_CASE("fixture: a kernel that writes into its input changes only its own case's copy") {
    course::input_cache inputs;
    const auto vandal = host_part([](const course::launch_args& a, std::size_t) {
        const_cast<float*>(a.in)[0] = 1.0e9f;
        a.out[0] = 0;
    });
    for (const bool on_device : {false, true}) {
        CHECK_FALSE(one_case(vandal, input_kind::integers, 4097, inputs, on_device).ok);
        const auto rec = one_case(honest(), input_kind::integers, 4097, inputs, on_device);
        CHECK(rec.ok);
        CHECK(rec.tolerance == 0.0);  // integers are judged exactly
    }
}

TEST_CASE("fixture: the result, the output's guards and the partial sums' guards all reach the verdict") {
    course::input_cache inputs;
        const std::size_t n = 4097;

    const auto silent = host_part([](const course::launch_args&, std::size_t) {});
    const auto untouched = one_case(silent, input_kind::random, n, inputs, true);
    CHECK_FALSE(untouched.ok);
    CHECK(untouched.untouched);
    CHECK(untouched.detail == "the output still holds the poison value: the last pass never wrote it");

    const auto past_out = host_part([](const course::launch_args& a, std::size_t) {
        a.out[0] = host_sum(a.in, a.n);
        a.out[1] = 0;  // one float past the one the kernel was given
    });
    const auto out_hit = one_case(past_out, input_kind::random, n, inputs, true);
    CHECK_FALSE(out_hit.ok);
    CHECK(out_hit.guard_hit);

    const auto past_scratch = host_part([](const course::launch_args& a, std::size_t scratch) {
        a.out[0] = host_sum(a.in, a.n);
        a.scratch[scratch + 63] = 0;  // the last guard word of the partial sums
    });
    const auto scratch_hit = one_case(past_scratch, input_kind::random, n, inputs, true);
    CHECK_FALSE(scratch_hit.ok);
    CHECK(scratch_hit.guard_hit);
    CHECK(scratch_hit.detail == "a guard word past the end of an output or partial-sum buffer was overwritten");

    const auto past_in = host_part([](const course::launch_args& a, std::size_t) {
        a.out[0] = host_sum(a.in, a.n + 1);  // one element too many
    });
    const auto nan = one_case(past_in, input_kind::random, n, inputs, true);
    CHECK_FALSE(nan.ok);
    CHECK(std::isnan(nan.got));
}

TEST_CASE("fixture: a changed input, made or drawn: a remembered result fails, the cache's copy stays as drawn") {
    course::input_cache inputs;
    const std::size_t n = 4097;
    float remembered = NAN;
    const auto memo = host_part([&remembered](const course::launch_args& a, std::size_t) {
        if (std::isnan(remembered)) remembered = host_sum(a.in, a.n);
        a.out[0] = remembered;
    });
    for (const bool on_device : {false, true}) {
        for (const bool cheat : {false, true}) {
            remembered = NAN;
            course::reduction_fixture f(n, memo.shape.scratch_elems(n), 1);
            f.use(input_kind::random, seed, inputs, on_device);
            const course::part& p = cheat ? memo : honest();
            CHECK(f.check(p, tolerance_c).ok);
            f.perturb(11, tolerance_c);
            CHECK(f.check(p, tolerance_c).ok == !cheat);
        }
    }
    // The changes went to the fixture's own buffer, not to the cache's copy.
    CHECK(one_case(honest(), input_kind::random, n, inputs, false).ok);
}
