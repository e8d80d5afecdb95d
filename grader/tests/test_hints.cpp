#include <doctest/doctest.h>

#include <cmath>

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

namespace {
std::vector<case_record> with_inputs(std::vector<case_record> cases, std::initializer_list<const char*> kinds) {
    std::vector<case_record> out;
    for (const char* k : kinds)
        for (case_record c : cases) {
            c.input = k;
            out.push_back(c);
        }
    return out;
}
}  // namespace

TEST_CASE("right within one warp, wrong beyond: the __syncthreads() before the tail, not the tail") {
    // lab 3 C without the barrier after its last block-level step, on the emulator.
    const auto cases = with_inputs({rec("ones", 1, true), rec("ones", 31, true), rec("ones", 32, true),
                                    rec("ones", 33, true), rec("ones", 255, false, 255, 223),
                                    rec("ones", 65536, false, 65536, 49152)},
                                   {"ones", "random"});
    CHECK(reduction_hint(cases, 512, "Check the warp tail.") ==
          "Right while the whole input fits in one warp (n <= 32), wrong once other warps hold data: the warp-level "
          "steps work, the hand-over between warps does not. Every step that reads partial sums other warps wrote "
          "must come after a __syncthreads(), the one where a single warp takes over included (before the "
          "warp-level tail, or before warp 0 sums the warps' results).");
}

TEST_CASE("wrong already within one warp: the warp-level tail keeps the lab's advice") {
    // The racy volatile tail: lane 0 runs all its steps first, so n = 31 is wrong too.
    const std::vector<case_record> cases = {rec("ones", 1, true), rec("ones", 31, false, 31, 6),
                                            rec("ones", 32, false, 32, 6), rec("ones", 65536, false, 65536, 7168)};
    CHECK(reduction_hint(cases, 512, "Check the warp tail.") == "Check the warp tail.");
}

TEST_CASE("too large by a multiple of the n % 4 leftover: every block adds it") {
    // lab 4 B on the emulator: 2 blocks for n = 4097, 8 for the larger sizes.
    const std::vector<case_record> cases = {
        rec("ones", 1, true),     rec("ones", 31, true),      rec("ones", 65536, true),
        rec("ones", 4097, false, 4097, 4098), rec("ones", 65535, false, 65535, 65556),
        rec("random", 131079, false, 812.5, 815.25)};
    CHECK(reduction_hint(cases, 4096) ==
          "Too large only when n % 4 != 0, and by a whole multiple of the n % 4 leftover elements past the last "
          "float4: more than one block adds them. The n % 4 leftover elements must be added once, by one thread of "
          "one block (index them with the thread's global index, not threadIdx.x alone).");
}

TEST_CASE("a leftover that is missing, not repeated, is still the partial-block advice") {
    const std::vector<case_record> cases = {rec("ones", 65536, true), rec("ones", 4097, false, 4097, 4096),
                                            rec("ones", 65535, false, 65535, 65532)};
    CHECK(reduction_hint(cases, 4096) ==
          "Wrong only when n is not a multiple of 4096 (the elements one block covers): the last block is partial. "
          "Check the bounds of every load from `in`; elements at or past n count as 0.");
}

TEST_CASE("a read past the end that faults: the partial-block advice, never a size the grader skips") {
    // lab 2 B without the bounds check: faults on small n (their records carry n), NaN
    // where the read stays within the guard words.
    case_record fault = rec("ones", 1, false);
    fault.fault = true;
    case_record nan = rec("ones", 65535, false, 65535, std::nan(""));
    const std::vector<case_record> cases = {fault, rec("ones", 256, true), rec("ones", 65536, true), nan};
    CHECK(reduction_hint(cases, 256) ==
          "Wrong only when n is not a multiple of 256 (the elements one block covers): the last block is partial. "
          "Check the bounds of every load from `in`; elements at or past n count as 0.");
}

TEST_CASE("the smallest failing case is one the grader ran") {
    case_record unknown = rec("ones", 0, false, 5, 4);  // a record without its size
    unknown.size = "n=?";
    CHECK(reduction_hint({rec("ones", 1, true), unknown, rec("ones", 512, false, 512, 13)}, 512) ==
          "Work through the smallest failing case by hand (n = 512) with the diagram in the handout.");
    CHECK(reduction_hint({rec("ones", 1, true), unknown}, 512) ==
          "Work through the first failing case above by hand with the diagram in the handout.");
}

TEST_CASE("a transpose whose output holds values that are nowhere in the input: the tile read too early") {
    case_record ok = rec("random", 1, true);
    ok.size = "1x1";
    case_record stale = rec("index", 1023, false, 33, 0.5);
    stale.size = "31x33";
    stale.detail = "out[0][1] (should be in[1][0]) holds 0.5, which is nowhere in this input: memory this case never "
                   "filled";
    CHECK(movement_hint({ok, stale}, 32) ==
          "Some output elements hold values that are nowhere in the input: most likely read from the tile before it "
          "was filled. Put a __syncthreads() between writing the tile and reading it, and read only tile elements "
          "this block wrote.");
    stale.detail = "out[0][1] holds in[0][2], not in[1][0]";
    CHECK(movement_hint({ok, stale}, 32) ==
          "Compare the first wrong element with where it should have come from: the failure message names both.");
}

TEST_CASE("the untouched stub is still recognised when a large random sum happens to lie within its tolerance of 0") {
    std::vector<course::case_record> cases = {rec("ones", 1, false, 1.0, 0.0), rec("random", 257, false, 12.5, 0.0)};
    auto lucky = rec("random", 4194311, true, 3.2, 0.0);
    cases.push_back(lucky);
    CHECK(course::reduction_hint(cases, 256, "") ==
          "Your kernel returns 0 for every input: it still looks like the untouched stub.");
}
