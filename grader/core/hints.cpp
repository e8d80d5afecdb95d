#include "core/hints.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace course {

namespace {

template <typename Pred>
bool all_of(const std::vector<const case_record*>& v, Pred p) {
    return std::all_of(v.begin(), v.end(), [&](const case_record* c) { return p(*c); });
}

std::vector<const case_record*> select(const std::vector<case_record>& cases, bool ok) {
    std::vector<const case_record*> out;
    for (const auto& c : cases)
        if (c.ok == ok) out.push_back(&c);
    return out;
}

bool exact_kind(const case_record& c) { return c.input == "ones" || c.input == "integers"; }

// lab 4 B reads float4s and adds the n % 4 elements past the last one separately. If
// every block adds them, the sum is too large by (blocks - 1) times their sum; on the
// all-ones input that is a whole multiple of n % 4. Only the grid of the first pass
// knows how many blocks, so the rule asks for the pattern, not the exact factor.
bool leftover_added_by_many_blocks(const std::vector<const case_record*>& failed,
                                   const std::vector<const case_record*>& passed) {
    const bool aligned_passed =
        std::any_of(passed.begin(), passed.end(), [](const case_record* c) { return c->n > 0 && c->n % 4 == 0; });
    if (!aligned_passed || !all_of(failed, [](const case_record& c) { return c.n % 4 != 0; })) return false;
    int ones_seen = 0;
    for (const auto* c : failed) {
        if (c->input != "ones") continue;
        ++ones_seen;
        const double extra = c->got - c->expected;
        const double leftover = static_cast<double>(c->n % 4);
        if (!(extra >= leftover) || std::fmod(extra, leftover) != 0) return false;
    }
    return ones_seen > 0;
}

// Right while every input element lives in the first warp, wrong once other warps hold
// some: the warp-level steps are fine and the hand-over from the whole block to one warp
// is not. On the emulator a racy warp-level tail fails already at n = 31 (lane 0 runs all
// its steps before lane 1 starts), so this pattern points before the tail.
bool wrong_only_beyond_one_warp(const std::vector<const case_record*>& failed,
                                const std::vector<const case_record*>& passed) {
    constexpr std::uint64_t warp = 32;
    const bool one_warp_passed =
        std::any_of(passed.begin(), passed.end(), [](const case_record* c) { return c->n > 1 && c->n <= warp; });
    return one_warp_passed && all_of(failed, [](const case_record& c) { return c.n > warp; });
}

// Hints that apply to any kernel: broken outputs say more than wrong numbers.
std::string output_hint(const std::vector<const case_record*>& failed, const char* write_rule) {
    if (std::any_of(failed.begin(), failed.end(), [](const case_record* c) { return c->guard_hit; }))
        return fmt::format("A write landed past the end of an output buffer: {}.", write_rule);
    if (all_of(failed, [](const case_record& c) { return c.untouched; }))
        return fmt::format("The output was never written: {}.", write_rule);
    return "";
}

}  // namespace

std::string reduction_hint(const std::vector<case_record>& cases, std::uint64_t elements_per_block,
                           const std::string& technique_hint) {
    const auto failed = select(cases, false);
    const auto passed = select(cases, true);
    if (failed.empty()) return "";
    if (all_of(failed, [](const case_record& c) { return c.fault; })) return "";

    if (auto h = output_hint(failed, "thread 0 of block b stores the block's sum in out[b] and nothing else");
        !h.empty())
        return h;
    // A case a stub passes is one whose sum happened to lie within its tolerance of 0 (a
    // large random input, now and then): it returned 0 there too.
    const auto zero = [](const case_record& c) { return c.got == 0.0; };
    if (all_of(passed, zero) && all_of(failed, zero))
        return "Your kernel returns 0 for every input: it still looks like the untouched stub.";

    // Right on every input, wrong only when the same buffers are run again after a few
    // elements changed: the kernel keeps state between calls (a cache, a flag, a counter).
    const auto changed = [](const case_record& c) {
        const std::string suffix = ", changed";
        return c.input.size() > suffix.size() && c.input.compare(c.input.size() - suffix.size(), suffix.size(),
                                                                  suffix) == 0;
    };
    if (!passed.empty() && all_of(failed, changed))
        return "Right on every fresh input, wrong when the grader runs it again after changing a few input "
               "elements: the kernel keeps something between calls (a remembered result, a flag or a counter "
               "in __device__ memory). Compute every call from its input, and keep nothing between calls.";

    // Before the partial-block rule, which this pattern also matches.
    if (leftover_added_by_many_blocks(failed, passed))
        return "Too large only when n % 4 != 0, and by a whole multiple of the n % 4 leftover elements past the "
               "last float4: more than one block adds them. The n % 4 leftover elements must be added once, by "
               "one thread of one block (index them with the thread's global index, not threadIdx.x alone).";

    const std::uint64_t epb = std::max<std::uint64_t>(elements_per_block, 1);
    const bool some_full_passed =
        std::any_of(passed.begin(), passed.end(), [&](const case_record* c) { return c->n % epb == 0; });
    if (some_full_passed && all_of(failed, [&](const case_record& c) { return c.n % epb != 0; }))
        return fmt::format(
            "Wrong only when n is not a multiple of {} (the elements one block covers): the last block is "
            "partial. Check the bounds of every load from `in`; elements at or past n count as 0.",
            epb);

    const bool some_large_passed =
        std::any_of(passed.begin(), passed.end(), [&](const case_record* c) { return c->n >= epb; });
    if (some_large_passed && all_of(failed, [&](const case_record& c) { return c.n < epb; }))
        return fmt::format(
            "Wrong only when n is smaller than one block ({} elements): threads whose element is past n "
            "must still take part in every __syncthreads() and contribute 0.",
            epb);

    if (all_of(failed, [](const case_record& c) {
            return c.expected != 0 && std::fabs(c.got / c.expected - 0.5) < 0.02;
        }))
        return "About half of the elements are missing from the sum: check how many elements each block "
               "covers and the stride of the first add.";

    const bool exact_passed = std::any_of(passed.begin(), passed.end(), [](const case_record* c) {
        return exact_kind(*c);
    });
    if (exact_passed && all_of(failed, [](const case_record& c) { return !exact_kind(c); }))
        return "Integer inputs are summed exactly, but random ones are off by more than rounding allows. "
               "Look for a race: a missing __syncthreads() between tree steps, or a warp-level step without "
               "__syncwarp() or shuffles.";

    if (some_large_passed && all_of(failed, [&](const case_record& c) { return c.n > epb * epb; }))
        return "Wrong only for large inputs, which need many blocks and a second pass over the partial "
               "sums: check that every block writes its own out[blockIdx.x] and reads only its own elements.";
    if (wrong_only_beyond_one_warp(failed, passed))
        return "Right while the whole input fits in one warp (n <= 32), wrong once other warps hold data: the "
               "warp-level steps work, the hand-over between warps does not. Every step that reads partial sums "
               "other warps wrote must come after a __syncthreads(), the one where a single warp takes over "
               "included (before the warp-level tail, or before warp 0 sums the warps' results).";
    if (!technique_hint.empty()) return technique_hint;
    // Only sizes the grader ran: a record without its size (n = 0) names none.
    std::uint64_t smallest = 0;
    for (const auto* c : failed)
        if (c->n > 0 && (smallest == 0 || c->n < smallest)) smallest = c->n;
    if (smallest == 0) return "Work through the first failing case above by hand with the diagram in the handout.";
    return fmt::format(
        "Work through the smallest failing case by hand (n = {}) with the diagram in the handout.", smallest);
}

std::string movement_hint(const std::vector<case_record>& cases, unsigned tile) {
    const auto failed = select(cases, false);
    const auto passed = select(cases, true);
    if (failed.empty()) return "";
    if (all_of(failed, [](const case_record& c) { return c.fault; })) return "";
    if (auto h = output_hint(failed, "every output element is written once, inside the matrix bounds"); !h.empty())
        return h;
    // Sizes are "RxC"; a ragged shape has a dimension that is not a multiple of the tile.
    auto ragged = [&](const case_record& c) {
        unsigned r = 0, k = 0;
        if (std::sscanf(c.size.c_str(), "%ux%u", &r, &k) != 2) return false;
        return r % tile != 0 || k % tile != 0;
    };
    const bool some_square_passed =
        std::any_of(passed.begin(), passed.end(), [&](const case_record* c) { return !ragged(*c); });
    if (some_square_passed && all_of(failed, ragged))
        return fmt::format(
            "Wrong only when a side is not a multiple of {}: the edge tiles are partial. Guard the load into "
            "the tile and the store out of it with the bounds of the input and of the output.",
            tile);
    // A transpose only moves values: one that is not in the input was read from memory
    // this run never filled, and on the emulator it is the previous case's data.
    if (std::any_of(failed.begin(), failed.end(),
                    [](const case_record* c) { return c->detail.find(not_in_input_words) != std::string::npos; }))
        return "Some output elements hold values that are nowhere in the input: most likely read from the tile "
               "before it was filled. Put a __syncthreads() between writing the tile and reading it, and read "
               "only tile elements this block wrote.";
    return "Compare the first wrong element with where it should have come from: the failure message names "
           "both.";
}

}  // namespace course
