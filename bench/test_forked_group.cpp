// The start line of bench/gpu_sharing.cu's processes, without a GPU: every child ready,
// then all go; one that cannot run, dies or fails is seen at once, not after the patience.
#include <doctest/doctest.h>

#include <csignal>
#include <stdexcept>

#include "forked_group.hpp"

using bench::child_result;
using bench::forked_group;
using bench::start_gate;

namespace {

child_result finished(double seconds) {
    child_result r;
    r.seconds = seconds;
    r.ended = bench::monotonic_seconds();
    r.cases = 7;
    return r;
}

}  // namespace

TEST_CASE("every child gets ready, then all go, and each one's result comes back") {
    forked_group group(3, [](int i, start_gate& gate) {
        if (!gate.ready()) return child_result{};
        return finished(0.5 + i);
    });
    REQUIRE(group.start(60));
    const auto got = group.results(60);
    REQUIRE(got.size() == 3);
    CHECK(got[0].seconds == 0.5);
    CHECK(got[1].seconds == 1.5);
    CHECK(got[2].seconds == 2.5);
    CHECK(got[2].cases == 7);
    CHECK(got[0].ended >= group.started());
}

TEST_CASE("no child starts its timed part before every child is ready") {
    // Child 1 takes 0.3 s to get ready; child 0's timed part must not begin before then.
    const double before = bench::monotonic_seconds();
    forked_group group(2, [](int i, start_gate& gate) {
        if (i == 1) usleep(300000);
        if (!gate.ready()) return child_result{};
        return finished(bench::monotonic_seconds());
    });
    REQUIRE(group.start(60));
    const auto got = group.results(60);
    REQUIRE(got.size() == 2);
    CHECK(got[0].seconds >= before + 0.3);
}

TEST_CASE("a child that cannot run, or dies, before it is ready stops the start at once") {
    const double t0 = bench::monotonic_seconds();
    {
        forked_group group(3, [](int i, start_gate& gate) {
            if (i == 1) throw std::runtime_error("no device (expected in this test)");
            if (!gate.ready()) return child_result{};
            return finished(1);
        });
        CHECK_FALSE(group.start(60));
    }
    {
        forked_group group(2, [](int i, start_gate& gate) {
            if (i == 0) raise(SIGKILL);
            if (!gate.ready()) return child_result{};
            return finished(1);
        });
        CHECK_FALSE(group.start(60));
    }
    CHECK(bench::monotonic_seconds() - t0 < 30);  // neither waited for its patience
}

TEST_CASE("a child that dies is seen while the others still get ready") {
    const double t0 = bench::monotonic_seconds();
    forked_group group(2, [](int i, start_gate& gate) {
        if (i == 0) usleep(5000000);  // child 0 takes 5 s to get ready
        if (i == 1) raise(SIGKILL);
        if (!gate.ready()) return child_result{};
        return finished(1);
    });
    CHECK_FALSE(group.start(60));
    CHECK(bench::monotonic_seconds() - t0 < 4);
}

TEST_CASE("a child that dies after it was ready, before its go, fails the start without ending the parent") {
    forked_group group(2, [](int i, start_gate& gate) {
        if (i == 1) {
            close(gate.down);  // nothing can write its go now
            const char ready = 1;
            (void)!write(gate.up, &ready, 1);
            raise(SIGKILL);
        }
        if (!gate.ready()) return child_result{};
        return finished(1);
    });
    CHECK_FALSE(group.start(60));  // without SIGPIPE ignored, this test's process would end here
}
