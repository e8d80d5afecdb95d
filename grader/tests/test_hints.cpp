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
    const auto h = reduction_hint({rec("ones", 1000, false, 1000, 500), rec("ones", 3000, false, 3000, 1500)}, 512);
    CHECK(h == "About half of the elements are missing from the sum: check how many elements each block covers and "
               "the stride of the first add.");
}

TEST_CASE("exact inputs pass, random ones fail: a race") {
    const auto h = reduction_hint({rec("ones", 4097, true), rec("integers", 4097, true),
                                   rec("random", 4097, false, 2048.3, 2011.7)},
                                  256);
    CHECK(h.find("race") != std::string::npos);
}

TEST_CASE("the lab's own advice replaces the generic last resort") {
    const std::vector<case_record> all_wrong = {rec("ones", 1, true), rec("ones", 31, false, 31, 13),
                                                rec("ones", 1024, false, 1024, 26)};
    CHECK(reduction_hint(all_wrong, 512) ==
          "Work through the smallest failing case by hand (n = 31) with the diagram in the handout.");
    CHECK(reduction_hint(all_wrong, 512, "Check the warp tail.") == "Check the warp tail.");
    // Right within one warp: the warp-level steps are not what is wrong, so the lab's
    // advice about them stays out.
    const std::vector<case_record> beyond_warp = {rec("ones", 1, true), rec("ones", 31, true),
                                                  rec("ones", 1024, false, 1024, 26)};
    CHECK(reduction_hint(beyond_warp, 512, "Check the warp tail.") ==
          "Right for every n up to 31, wrong from n = 1024 on (all ones, n = 1024: 26 instead of 1024): work through "
          "n = 1024 by hand with the diagram in the handout.");
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

TEST_CASE("right within one warp, wrong from n = 33: the __syncthreads() before one warp takes over") {
    // lab 4 A whose block combine reads the warps' sums without a barrier, on the emulator.
    const auto cases = with_inputs({rec("ones", 1, true), rec("ones", 31, true), rec("ones", 32, true),
                                    rec("ones", 33, false, 33, 32), rec("ones", 65536, false, 65536, 8192)},
                                   {"ones", "random"});
    CHECK(reduction_hint(cases, 4096, "Check the warp tail.") ==
          "Right while the whole input fits in one warp (n <= 32), wrong from n = 33 on (all ones, n = 33: 32 instead "
          "of 33): partial sums that other warps wrote are read before a barrier makes them visible. Every step that "
          "reads partial sums other warps wrote must come after a __syncthreads(), the one where a single warp takes "
          "over included.");
}

TEST_CASE("right past one warp: the one-warp hint stays out, the sizes are said as they are") {
    // lab 3 C without the barrier after its last block-level step, on the emulator: n = 33
    // is right there, so nothing says which barrier.
    const auto cases = with_inputs({rec("ones", 1, true), rec("ones", 31, true), rec("ones", 32, true),
                                    rec("ones", 33, true), rec("ones", 255, false, 255, 223),
                                    rec("ones", 65536, false, 65536, 49152)},
                                   {"ones", "random"});
    CHECK(reduction_hint(cases, 512, "Check the warp tail.") ==
          "Right for every n up to 33, wrong from n = 255 on (all ones, n = 255: 223 instead of 255): work through "
          "n = 255 by hand with the diagram in the handout.");
}

TEST_CASE("half of what one block holds summed: a step of the tree missing") {
    // lab 1 whose tree stops at stride < blockDim.x / 2 (the 'warp-level tail' hint).
    const std::vector<case_record> cases = {rec("ones", 1, true), rec("ones", 31, true), rec("ones", 32, true),
                                            rec("ones", 33, true), rec("ones", 255, false, 255, 128),
                                            rec("ones", 256, false, 256, 128), rec("ones", 65536, false, 65536, 32768)};
    CHECK(reduction_hint(cases, 256) ==
          "Only half of the elements one block holds reach its sum (all ones, n = 256: 128 instead of 256): a step "
          "of the tree is missing (it must go on until one partial sum is left), or the load leaves the rest of the "
          "block's elements out.");
    const std::vector<case_record> quarter = {rec("ones", 1, true), rec("ones", 256, false, 256, 64),
                                              rec("ones", 512, false, 512, 128)};
    CHECK(reduction_hint(quarter, 256) ==
          "Only 1/4 of the elements one block holds reach its sum (all ones, n = 256: 64 instead of 256): 2 steps "
          "of the tree are missing (it must go on until one partial sum is left), or the load leaves the rest of the "
          "block's elements out.");
}

TEST_CASE("wrong exactly off multiples of 4: the float4 leftover, not the partial block") {
    // lab 4 B without its n % 4 loop: n = 1000 is right, so the block (4096) is not it.
    const std::vector<case_record> cases = {rec("ones", 1, false, 1, 0),    rec("ones", 32, true),
                                            rec("ones", 33, false, 33, 32), rec("ones", 1000, true),
                                            rec("ones", 4097, false, 4097, 4096), rec("ones", 65536, true)};
    CHECK(reduction_hint(cases, 4096) ==
          "Wrong exactly when n is not a multiple of 4 (all ones, n = 1: 0 instead of 1): the n % 4 elements after "
          "the last whole float4 are mishandled. Add them once, each element at or past n counting as 0.");
}

TEST_CASE("right within one block, wrong past it: the blocks after block 0") {
    const std::vector<case_record> cases = {rec("ones", 1, true), rec("ones", 255, true), rec("ones", 256, true),
                                            rec("ones", 257, false, 257, 256), rec("ones", 1000, false, 1000, 512)};
    CHECK(reduction_hint(cases, 256) ==
          "Right while the input fits in one block of 256 elements (up to n = 256), wrong from n = 257 on (all ones, "
          "n = 257: 256 instead of 257): the blocks after block 0 do not sum their own elements. Each block's first "
          "load must start at blockIdx.x times the elements one block covers.");
}

TEST_CASE("wrong already for one element") {
    const std::vector<case_record> cases = {rec("ones", 1, false, 1, 0), rec("ones", 32, false, 32, 31),
                                            rec("ones", 256, false, 256, 255)};
    CHECK(reduction_hint(cases, 256) ==
          "Wrong already for n = 1 (all ones: 0 instead of 1): element 0 never reaches out[0]. Check which thread "
          "writes out[blockIdx.x], and that it holds the block's whole sum when it does.");
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
          "Wrong only when n is not a multiple of 4096, the elements one block covers (all ones, n = 4097: 4096 "
          "instead of 4097): the last block is partial. Check the bounds of every load from `in`; elements at or past "
          "n count as 0.");
}

TEST_CASE("a read past the end that faults: the partial-block advice, never a size the grader skips") {
    // lab 2 B without the bounds check: faults on small n (their records carry n), NaN
    // where the read stays within the guard words.
    case_record fault = rec("ones", 1, false);
    fault.fault = true;
    case_record nan = rec("ones", 65535, false, 65535, std::nan(""));
    const std::vector<case_record> cases = {fault, rec("ones", 256, true), rec("ones", 65536, true), nan};
    CHECK(reduction_hint(cases, 256) ==
          "Wrong only when n is not a multiple of 256, the elements one block covers: the last block is partial. "
          "Check the bounds of every load from `in`; elements at or past n count as 0.");
}

TEST_CASE("the smallest failing case is one the grader ran") {
    case_record unknown = rec("ones", 0, false, 5, 4);  // a record without its size
    unknown.size = "n=?";
    CHECK(reduction_hint({rec("ones", 1, true), unknown, rec("ones", 512, false, 512, 13)}, 512) ==
          "Work through the smallest failing case by hand (n = 512) with the diagram in the handout.");
    CHECK(reduction_hint({rec("ones", 1, true), rec("ones", 32, true), unknown, rec("ones", 512, false, 512, 13)},
                         512) ==
          "Right for every n up to 32, wrong from n = 512 on (all ones, n = 512: 13 instead of 512): work through n = "
          "512 by hand with the diagram in the handout.");
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

TEST_CASE("on a GPU's sizes a dropped partial block fails a multiple of the block too: a later pass is partial") {
    // lab 1 dropping its partial last block, at the GPU's sizes: 1048576 leaves 4096 partial
    // sums, then 16, and the last pass drops them all; only n = 256 is right.
    const std::vector<case_record> cases = {
        rec("ones", 1, false, 1, 0),          rec("ones", 256, true),
        rec("ones", 257, false, 257, 256),    rec("ones", 1000, false, 1000, 768),
        rec("ones", 1048576, false, 1048576, 0), rec("ones", 33554432, false, 33554432, 0)};
    CHECK(reduction_hint(cases, 256) ==
          "Wrong only when a pass ends in a partial block: n, or the number of partial sums a later pass adds up, is "
          "not a multiple of 256, the elements one block covers (n = 1048576 leaves 16 for a later pass) (all ones, "
          "n = 1: 0 instead of 1). Check the bounds of every load from `in`; elements at or past n count as 0.");
    // With the grid capped at 528 blocks (a grid-stride kernel), the first pass leaves 528
    // partial sums, and that pass is the partial one.
    CHECK(reduction_hint(cases, 256, "", 528).find("(n = 1048576 leaves 528 for a later pass)") != std::string::npos);
}

TEST_CASE("wrong only for large inputs: a block that reads what is not its own, or a race many warps show") {
    const std::vector<case_record> cases = {rec("ones", 1, true), rec("ones", 256, true), rec("ones", 4097, true),
                                            rec("ones", 1048575, false, 1048575, 1048000),
                                            rec("ones", 16777223, false, 16777223, 16770000)};
    CHECK(reduction_hint(cases, 256) ==
          "Wrong only for large inputs, which need many blocks and a second pass over the partial sums: check that "
          "every block writes its own out[blockIdx.x] and reads only its own elements. If it does, look for a race "
          "that shows only when many warps run at once (a missing __syncthreads() or __syncwarp()): the CPU emulator "
          "(`--emulate`) names such a race with both lines.");
}

TEST_CASE("all ones past 2^24 that passed says nothing: a float's tolerance there hides a few missing elements") {
    // lab 4 B dropping the n % 4 leftover, at the GPU's sizes: 16777223 with three ones
    // missing lies within the tolerance of a sum no float holds exactly.
    const std::vector<case_record> cases = {
        rec("ones", 1, false, 1, 0),      rec("ones", 32, true),          rec("ones", 33, false, 33, 32),
        rec("ones", 1000, true),          rec("ones", 1048575, false, 1048575, 1048572),
        rec("ones", 1048576, true),       rec("ones", 16777223, true)};
    CHECK(reduction_hint(cases, 4096) ==
          "Wrong exactly when n is not a multiple of 4 (all ones, n = 1: 0 instead of 1): the n % 4 elements after "
          "the last whole float4 are mishandled. Add them once, each element at or past n counting as 0.");
}

TEST_CASE("wrong below a size that was right, with no rule of sizes: a race") {
    // lab 4 A without the barrier before the last warp combines (unsynced_combine) on a GPU:
    // n = 255 happened to come out right between two sizes that did not.
    const std::vector<case_record> comes_and_goes = {
        rec("ones", 1, true),  rec("ones", 32, true),   rec("ones", 33, false, 33, 32),
        rec("ones", 255, true), rec("ones", 256, false, 256, 224), rec("ones", 4097, false, 4097, 4000)};
    CHECK(reduction_hint(comes_and_goes, 1024) ==
          "Wrong for some sizes but right for larger ones, and no rule of sizes fits: a result that comes and goes "
          "like this is most often a race, whose outcome changes from run to run on a GPU. Look for a step that "
          "reads partial sums other warps wrote with no __syncthreads() before it, or a warp-level step without "
          "__syncwarp() or shuffles: the CPU emulator (`--emulate`) names a shared-memory race with both lines.");
    // A larger size right only on a random input proves nothing (its sum may lie within the
    // tolerance by chance): the last resort stays.
    CHECK(reduction_hint({rec("ones", 1, true), rec("ones", 33, false, 33, 32), rec("random", 255, true)}, 1024) ==
          "Work through the smallest failing case by hand (n = 33) with the diagram in the handout.");
    // Wrong from one size on, right below it: the boundary's own hint, not a race.
    CHECK(reduction_hint({rec("ones", 1, true), rec("ones", 255, true), rec("ones", 256, false, 256, 224),
                          rec("ones", 4097, false, 4097, 4000)},
                         1024) ==
          "Right for every n up to 255, wrong from n = 256 on (all ones, n = 256: 224 instead of 256): work through "
          "n = 256 by hand with the diagram in the handout.");
}

TEST_CASE("wrong on a GPU and on the emulator, which found a race: the race and the emulator's hint") {
    // unsynced_combine's lab 4 A on an H100 once passed every n up to 257 and failed from
    // n = 1000 on: the GPU's sizes said nothing of the race, which the emulator found.
    const std::string race =
        "kernel 'reduce_shuffle', block (0,0,0): data race on __shared__ memory: thread (1,0,0) reads a word "
        "(at kernels.cu:50 via kernels.cu:68) and thread (32,0,0) writes it (at kernels.cu:48 via kernels.cu:68) "
        "with no __syncthreads() between them. Which one goes first is up to the GPU; synchronise between them. "
        "(random input, n=1)";
    const std::string emulator_hint = "Right while the whole input fits in one warp (n <= 32), wrong from n = 33 on.";
    const std::string expected =
        "The CPU emulator, which runs the same file beside the GPU, found a race in it: kernel 'reduce_shuffle', "
        "block (0,0,0): data race on __shared__ memory: thread (1,0,0) reads a word (at kernels.cu:50 via "
        "kernels.cu:68) and thread (32,0,0) writes it (at kernels.cu:48 via kernels.cu:68) with no "
        "__syncthreads() between them. Which one goes first is up to the GPU; synchronise between them. (random "
        "input, n=1). Which sizes a race spoils changes from run to run on a GPU, so this is the emulator's hint, "
        "where it goes wrong the same way every run: Right while the whole input fits in one warp (n <= 32), "
        "wrong from n = 33 on.";
    CHECK(race_hint(race, emulator_hint) == expected);

    const auto part = [&](correctness_status gpu, const std::string& emulator, bool raced) {
        part_result p;
        p.correctness.status = gpu;
        p.correctness.hint = "Right for every n up to 257, wrong from n = 1000 on.";
        p.emulator_hint = emulator;
        if (raced) p.hazards.races.push_back(race);
        return p;
    };
    std::map<std::string, part_result> results = {
        {"A", part(correctness_status::failed, emulator_hint, true)},
        // The GPU's run passed: racecheck judges the race, and no hint is given.
        {"B", part(correctness_status::passed, emulator_hint, true)},
        // The emulator's cases passed, crashed or hung (no hint of its own kept): the GPU's.
        {"C", part(correctness_status::failed, "", true)},
        // No race: the GPU's sizes are its own to read.
        {"D", part(correctness_status::failed, emulator_hint, false)},
        // A crash on the GPU is told by its message, not by sizes.
        {"E", part(correctness_status::crashed, emulator_hint, true)}};
    apply_race_hints(results);
    CHECK(results["A"].correctness.hint == expected);
    for (const char* id : {"B", "C", "D", "E"})
        CHECK(results[id].correctness.hint == "Right for every n up to 257, wrong from n = 1000 on.");
}
