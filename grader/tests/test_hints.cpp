#include <doctest/doctest.h>

#include "core/hints.hpp"

using namespace course;

namespace {
case_record rec(const char* input, std::uint64_t n, bool ok, double expected = 10, double got = 10) {
    case_record r;
    r.input = input;
    r.n = n;
    r.size = "n=" + std::to_string(n);
    r.ok = ok;
    r.expected = expected;
    r.got = got;
    return r;
}
}  // namespace

TEST_CASE("no failures, no hint") {
    CHECK(reduction_hint({rec("ones", 256, true)}, 256) == "");
}

TEST_CASE("a partial last block") {
    const auto h = reduction_hint({rec("ones", 256, true), rec("ones", 512, true), rec("ones", 257, false, 257, 256),
                                   rec("ones", 1000, false, 1000, 768)},
                                  256);
    CHECK(h.find("not a multiple of 256") != std::string::npos);
}

TEST_CASE("the untouched stub") {
    const auto h = reduction_hint({rec("ones", 256, false, 256, 0), rec("random", 31, false, 15.2, 0)}, 256);
    CHECK(h == "Your kernel returns 0 for every input: it still looks like the untouched stub.");
}

TEST_CASE("zeros with some cases right is not the stub") {
    const auto h = reduction_hint({rec("ones", 256, true), rec("ones", 257, false, 257, 0), rec("ones", 1, false, 1, 0)},
                                  256);
    CHECK(h.find("not a multiple of 256") != std::string::npos);
}

TEST_CASE("outputs never written, and writes past the end") {
    case_record u = rec("ones", 256, false);
    u.untouched = true;
    CHECK(reduction_hint({u}, 256).rfind("The output was never written", 0) == 0);
    case_record g = rec("ones", 256, false);
    g.guard_hit = true;
    CHECK(reduction_hint({g}, 256).rfind("A write landed past the end", 0) == 0);
}

TEST_CASE("half the elements missing") {
    const auto h = reduction_hint({rec("ones", 1024, false, 1024, 512), rec("ones", 2048, false, 2048, 1024)}, 512);
    CHECK(h.rfind("About half of the elements", 0) == 0);
}

TEST_CASE("exact inputs pass, random ones fail: a race") {
    const auto h = reduction_hint({rec("ones", 4097, true), rec("integers", 4097, true),
                                   rec("random", 4097, false, 2048.3, 2011.7)},
                                  256);
    CHECK(h.find("race") != std::string::npos);
}

TEST_CASE("the lab's own advice replaces the generic last resort") {
    const std::vector<case_record> all_wrong = {rec("ones", 1, true), rec("ones", 512, false, 512, 13),
                                                rec("ones", 1024, false, 1024, 26)};
    CHECK(reduction_hint(all_wrong, 512) ==
          "Work through the smallest failing case by hand (n = 512) with the diagram in the handout.");
    CHECK(reduction_hint(all_wrong, 512, "Check the warp tail.") == "Check the warp tail.");
}

TEST_CASE("ragged matrices") {
    case_record ok = rec("random", 1024, true);
    ok.size = "32x32";
    case_record bad = rec("random", 1023, false);
    bad.size = "31x33";
    CHECK(movement_hint({ok, bad}, 32).find("not a multiple of 32") != std::string::npos);
}

TEST_CASE("wrong only after a few input elements changed: state kept between calls") {
    const auto h = reduction_hint({rec("random", 65536, true, 32768.5, 32768.5), rec("ones", 65536, true),
                                   rec("random, changed", 65536, false, 32900.25, 32768.5)},
                                  256);
    CHECK(h.find("keeps something between calls") != std::string::npos);
}
