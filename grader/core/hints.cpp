#include "core/hints.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "course/reduction_shape.hpp"

namespace course {

namespace {

using cases_view = std::vector<const case_record*>;

template <typename Pred>
bool all_of(const cases_view& v, Pred p) {
    return std::all_of(v.begin(), v.end(), [&](const case_record* c) { return p(*c); });
}

template <typename Pred>
bool any_of(const cases_view& v, Pred p) {
    return std::any_of(v.begin(), v.end(), [&](const case_record* c) { return p(*c); });
}

cases_view select(const std::vector<case_record>& cases, bool ok) {
    cases_view out;
    for (const auto& c : cases)
        if (c.ok == ok) out.push_back(&c);
    return out;
}

bool exact_kind(const case_record& c) { return c.input == "ones" || c.input == "integers"; }

// On the all-ones input a sum counts the elements that reached it, so a wrong one says how
// many went missing or were counted twice. The smallest such case is the one quoted.
const case_record* ones_witness(const cases_view& failed) {
    const case_record* best = nullptr;
    for (const auto* c : failed)
        if (c->input == "ones" && c->n > 0 && !c->fault && std::isfinite(c->got) && std::floor(c->got) == c->got &&
            (best == nullptr || c->n < best->n))
            best = c;
    return best;
}

std::string witness_words(const case_record* c) {
    if (c == nullptr) return "";
    return fmt::format(" (all ones, n = {}: {:.0f} instead of {})", c->n, c->got, c->n);
}

// Whether each size the grader ran had a wrong case. A size whose cases were all right
// counts as right only if one of them has an exact input (all ones, integers) that a float
// sums exactly: a random sum can lie within its tolerance with a few elements missing (the
// emulator's large case, 4194311 elements, does with three), and so can all ones past
// 2^24, where a float's integers are no longer all there (a GPU's 16777223 with three
// missing), so such a size says nothing. Records without their size (n = 0) say nothing.
constexpr std::uint64_t float_exact_integers = std::uint64_t{1} << 24;
std::map<std::uint64_t, bool> wrong_by_size(const std::vector<case_record>& cases) {
    std::map<std::uint64_t, bool> wrong, exact_right;
    for (const auto& c : cases) {
        if (c.n == 0) continue;
        wrong[c.n] = wrong[c.n] || !c.ok;
        exact_right[c.n] = exact_right[c.n] || (c.ok && exact_kind(c) && c.n <= float_exact_integers);
    }
    for (auto it = wrong.begin(); it != wrong.end();)
        it = !it->second && !exact_right[it->first] ? wrong.erase(it) : std::next(it);
    return wrong;
}

// The course's driver sums n values pass after pass, each pass's partial sums the next
// one's input, until one block is left (common/course/reduction_driver.hpp). A pass whose
// grid is not capped ends in a partial block when its input is not a multiple of the
// elements one block covers: n = 1048576 in blocks of 256 leaves 4096 and then 16.
struct pass_chain {
    reduction_shape shape;  // one "thread" per element: elements_per_block() is the block's

    std::uint64_t epb() const { return shape.elements_per_block(); }
    bool partial(std::uint64_t m) const {
        return m % epb() != 0 && (shape.max_grid == 0 || (m + epb() - 1) / epb() <= shape.max_grid);
    }
    // The first later pass's input that ends in a partial block, or 0.
    std::uint64_t later_partial(std::uint64_t n) const {
        for (std::uint64_t m = n; shape.grid_for(m) > 1;) {
            m = shape.grid_for(m);
            if (partial(m)) return m;
        }
        return 0;
    }
    bool any_partial(std::uint64_t n) const { return partial(n) || later_partial(n) != 0; }
};

template <typename Pred>
bool wrong_exactly_when(const std::map<std::uint64_t, bool>& wrong, Pred predicts_wrong) {
    bool some_predicted = false, some_other = false;
    for (const auto& [n, bad] : wrong) {
        const bool predicted = predicts_wrong(n);
        if (predicted != bad) return false;
        (predicted ? some_predicted : some_other) = true;
    }
    return some_predicted && some_other;
}

// Every size that is not a multiple of m went wrong and every multiple of m was right:
// the elements past the last multiple of m are the ones mishandled.
bool wrong_exactly_off_multiples(const std::map<std::uint64_t, bool>& wrong, std::uint64_t m) {
    return wrong_exactly_when(wrong, [m](std::uint64_t n) { return n % m != 0; });
}

// Every size below `first_wrong` was right and every size from it on had a wrong case.
struct size_boundary {
    std::uint64_t last_right = 0, first_wrong = 0;
};
bool clean_boundary(const std::map<std::uint64_t, bool>& wrong, size_boundary& b) {
    bool seen_wrong = false;
    for (const auto& [n, bad] : wrong) {
        if (bad && !seen_wrong) {
            seen_wrong = true;
            b.first_wrong = n;
        } else if (!bad && seen_wrong) {
            return false;
        } else if (!bad) {
            b.last_right = n;
        }
    }
    return seen_wrong && b.last_right > 0;
}

// lab 4 B reads float4s and adds the n % 4 elements past the last one separately. If
// every block adds them, the sum is too large by (blocks - 1) times their sum; on the
// all-ones input that is a whole multiple of n % 4. Only the grid of the first pass
// knows how many blocks, so the rule asks for the pattern, not the exact factor.
bool leftover_added_by_many_blocks(const cases_view& failed, const cases_view& passed) {
    const bool aligned_passed = any_of(passed, [](const case_record& c) { return c.n > 0 && c.n % 4 == 0; });
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

// On all ones, every wrong power-of-two size that one block holds summed exactly n / 2^k
// for one k >= 1: the block lost the same power-of-two share of its elements. Larger
// inputs say nothing here, since the second pass loses its own share. Returns k (0 when
// the pattern is not there) and the case that shows it.
int halvings_in_one_block(const cases_view& failed, std::uint64_t epb, const case_record*& witness) {
    int k = 0;
    witness = nullptr;
    for (const auto* c : failed) {
        if (c->input != "ones" || c->n < 2 || c->n > epb || (c->n & (c->n - 1)) != 0) continue;
        int this_k = 0;
        double got = c->got;
        while (got > 0 && got < static_cast<double>(c->n) && this_k < 20) {
            got *= 2;
            ++this_k;
        }
        if (got != static_cast<double>(c->n) || this_k == 0 || (k != 0 && this_k != k)) return 0;
        k = this_k;
        if (witness == nullptr || c->n > witness->n) witness = c;
    }
    return k;
}

// Hints that apply to any kernel: broken outputs say more than wrong numbers.
std::string output_hint(const cases_view& failed, const char* write_rule) {
    if (any_of(failed, [](const case_record& c) { return c.guard_hit; }))
        return fmt::format("A write landed past the end of an output buffer: {}.", write_rule);
    if (all_of(failed, [](const case_record& c) { return c.untouched; }))
        return fmt::format("The output was never written: {}.", write_rule);
    return "";
}

bool changed_input(const case_record& c) {
    const std::string suffix = ", changed";
    return c.input.size() > suffix.size() &&
           c.input.compare(c.input.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The hints read from which sizes went wrong, in the order the checks below run.
std::string size_pattern_hint(const std::vector<case_record>& cases, const cases_view& failed,
                              const cases_view& passed, const pass_chain& chain) {
    const std::uint64_t epb = chain.epb();
    const auto wrong = wrong_by_size(cases);
    const std::string witness = witness_words(ones_witness(failed));
    // Told apart from a partial last block only by a size that is a multiple of 4 and not
    // of a block, and was right.
    const bool four_not_block_right = std::any_of(wrong.begin(), wrong.end(), [&](const auto& size) {
        return !size.second && size.first % 4 == 0 && size.first % epb != 0;
    });
    if (epb % 4 == 0 && four_not_block_right && wrong_exactly_off_multiples(wrong, 4))
        return fmt::format(
            "Wrong exactly when n is not a multiple of 4{}: the n % 4 elements after the last whole float4 are "
            "mishandled. Add them once, each element at or past n counting as 0.",
            witness);
    if (wrong_exactly_off_multiples(wrong, epb))
        return fmt::format(
            "Wrong only when n is not a multiple of {}, the elements one block covers{}: the last block is partial. "
            "Check the bounds of every load from `in`; elements at or past n count as 0.",
            epb, witness);
    // A multiple of a block that went wrong because a later pass ended in a partial block
    // (on a GPU's sizes, a kernel that drops a partial block fails n = 1048576 too).
    if (wrong_exactly_when(wrong, [&](std::uint64_t n) { return chain.any_partial(n); })) {
        const auto later = std::find_if(wrong.begin(), wrong.end(),
                                        [&](const auto& size) { return size.second && size.first % epb == 0; });
        if (later != wrong.end())
            return fmt::format(
                "Wrong only when a pass ends in a partial block: n, or the number of partial sums a later pass adds "
                "up, is not a multiple of {}, the elements one block covers (n = {} leaves {} for a later pass){}. "
                "Check the bounds of every load from `in`; elements at or past n count as 0.",
                epb, later->first, chain.later_partial(later->first), witness);
    }
    const bool some_large_passed = any_of(passed, [&](const case_record& c) { return c.n >= epb; });
    if (some_large_passed && all_of(failed, [&](const case_record& c) { return c.n < epb; }))
        return fmt::format(
            "Wrong only when n is smaller than one block ({} elements){}: threads whose element is past n must "
            "still take part in every __syncthreads() and contribute 0.",
            epb, witness);
    const auto one = wrong.find(1);
    if (one != wrong.end() && one->second) {
        const auto* w = ones_witness(failed);
        if (w != nullptr && w->n == 1 && w->got == 0)
            return "Wrong already for n = 1 (all ones: 0 instead of 1): element 0 never reaches out[0]. Check "
                   "which thread writes out[blockIdx.x], and that it holds the block's whole sum when it does.";
    }
    size_boundary b;
    const bool clean = clean_boundary(wrong, b);
    constexpr std::uint64_t warp = 32;
    if (clean && b.last_right >= warp / 2 && b.last_right <= warp && b.first_wrong > warp && b.first_wrong <= 2 * warp)
        return fmt::format(
            "Right while the whole input fits in one warp (n <= {}), wrong from n = {} on{}: partial sums that "
            "other warps wrote are read before a barrier makes them visible. Every step that reads partial sums "
            "other warps wrote must come after a __syncthreads(), the one where a single warp takes over included.",
            b.last_right, b.first_wrong, witness);
    const case_record* halved = nullptr;
    if (const int k = halvings_in_one_block(failed, epb, halved); k > 0)
        return fmt::format(
            "Only {} of the elements one block holds reach its sum{}: {} of the tree {} missing (it must go on "
            "until one partial sum is left), or the load leaves the rest of the block's elements out.",
            k == 1 ? std::string("half") : fmt::format("1/{}", 1u << k), witness_words(halved),
            k == 1 ? std::string("a step") : fmt::format("{} steps", k), k == 1 ? "is" : "are");
    if (clean && b.last_right > epb / 2 && b.last_right <= epb && b.first_wrong > epb && b.first_wrong <= 2 * epb)
        return fmt::format(
            "Right while the input fits in one block of {} elements (up to n = {}), wrong from n = {} on{}: the "
            "blocks after block 0 do not sum their own elements. Each block's first load must start at "
            "blockIdx.x times the elements one block covers.",
            epb, b.last_right, b.first_wrong, witness);
    // On a GPU a race often shows only when many warps run at once, which looks the same.
    if (clean && b.last_right >= epb && b.first_wrong > epb * epb)
        return "Wrong only for large inputs, which need many blocks and a second pass over the partial sums: check "
               "that every block writes its own out[blockIdx.x] and reads only its own elements. If it does, look "
               "for a race that shows only when many warps run at once (a missing __syncthreads() or "
               "__syncwarp()): the CPU emulator (`--emulate`) names such a race with both lines.";
    return "";
}

// A size that went wrong below one that was right, where none of the rules above fits:
// the result comes and goes, as a race's does from run to run on a GPU (where the cases of
// a kernel that reads other warps' partial sums too early pass or fail by chance).
std::string irregular_sizes_hint(const std::map<std::uint64_t, bool>& wrong) {
    const auto first_wrong = std::find_if(wrong.begin(), wrong.end(), [](const auto& size) { return size.second; });
    if (first_wrong == wrong.end()) return "";
    if (std::none_of(std::next(first_wrong), wrong.end(), [](const auto& size) { return !size.second; })) return "";
    return "Wrong for some sizes but right for larger ones, and no rule of sizes fits: a result that comes and goes "
           "like this is most often a race, whose outcome changes from run to run on a GPU. Look for a step that "
           "reads partial sums other warps wrote with no __syncthreads() before it, or a warp-level step without "
           "__syncwarp() or shuffles: the CPU emulator (`--emulate`) names a shared-memory race with both lines.";
}

}  // namespace

std::string reduction_hint(const std::vector<case_record>& cases, std::uint64_t elements_per_block,
                           const std::string& technique_hint, std::uint64_t max_grid) {
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
    if (!passed.empty() && all_of(failed, changed_input))
        return "Right on every fresh input, wrong when the grader runs it again after changing a few input "
               "elements: the kernel keeps something between calls (a remembered result, a flag or a counter "
               "in __device__ memory). Compute every call from its input, and keep nothing between calls.";

    // Before the rule of the n % 4 leftover, which this pattern also matches.
    if (leftover_added_by_many_blocks(failed, passed))
        return "Too large only when n % 4 != 0, and by a whole multiple of the n % 4 leftover elements past the "
               "last float4: more than one block adds them. The n % 4 leftover elements must be added once, by "
               "one thread of one block (index them with the thread's global index, not threadIdx.x alone).";

    const std::uint64_t epb = std::max<std::uint64_t>(elements_per_block, 1);
    if (auto h = size_pattern_hint(cases, failed, passed, pass_chain{{static_cast<unsigned>(epb), 1, static_cast<unsigned>(max_grid)}}); !h.empty()) return h;

    if (all_of(failed, [](const case_record& c) {
            return c.expected != 0 && std::fabs(c.got / c.expected - 0.5) < 0.02;
        }))
        return "About half of the elements are missing from the sum: check how many elements each block "
               "covers and the stride of the first add.";

    if (any_of(passed, exact_kind) && all_of(failed, [](const case_record& c) { return !exact_kind(c); }))
        return "Integer inputs are summed exactly, but random ones are off by more than rounding allows. "
               "Look for a race: a missing __syncthreads() between tree steps, or a warp-level step without "
               "__syncwarp() or shuffles.";

    // The lab's own advice is for a kernel already wrong within one warp, where only the
    // warp-level steps act, and right for a single element.
    const auto wrong = wrong_by_size(cases);
    const auto one = wrong.find(1);
    const bool one_right = one != wrong.end() && !one->second;
    if (!technique_hint.empty() && one_right &&
        any_of(failed, [](const case_record& c) { return c.n > 1 && c.n <= 32; }))
        return technique_hint;
    size_boundary b;
    if (clean_boundary(wrong, b) && b.last_right > 1)
        return fmt::format(
            "Right for every n up to {}, wrong from n = {} on{}: work through n = {} by hand with the diagram in "
            "the handout.",
            b.last_right, b.first_wrong, witness_words(ones_witness(failed)), b.first_wrong);
    if (auto h = irregular_sizes_hint(wrong); !h.empty()) return h;
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

std::string race_hint(const std::string& race, const std::string& emulator_hint) {
    return "The CPU emulator, which runs the same file beside the GPU, found a race in it: " + race +
           ". Which sizes a race spoils changes from run to run on a GPU, so this is the emulator's hint, where it "
           "goes wrong the same way every run: " + emulator_hint;
}

void apply_race_hints(std::map<std::string, part_result>& results) {
    for (auto& [id, part] : results)
        if (part.correctness.status == correctness_status::failed && !part.emulator_hint.empty() &&
            !part.hazards.races.empty())
            part.correctness.hint = race_hint(part.hazards.races.front(), part.emulator_hint);
}

}  // namespace course
