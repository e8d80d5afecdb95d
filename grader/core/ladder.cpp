#include "core/ladder.hpp"

#include <algorithm>
#include <cmath>

namespace course {

namespace {

double ratio(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b); }

// Shared wavefronts beyond the conflict-free count, per input element.
double bank_excess(const version_counters& v) {
    const std::uint64_t wf = v.shared_load_wavefronts + v.shared_store_wavefronts + v.shared_atomic_wavefronts;
    return ratio(wf > v.shared_ideal_wavefronts ? wf - v.shared_ideal_wavefronts : 0, v.elements);
}

// The thresholds sit far from every rung's own kernels and the honest variants
// (grader/tests/test_ladder.py): the divergent tree has 0.4 excess warp-requests per
// element and the others 0; the strided index about 0.4 excess wavefronts per element and
// the others 0; one element per thread is 1.0 and the first add 2.0; float4 loads move
// 16 sectors per request, float2 ones 8 and 4-byte ones 4.
constexpr double idle = 0.05, conflicts = 0.05, two_per_thread = 1.5, wide_sectors = 6.0;

// Every block of a reduction stores its sum once, so its global stores count its blocks.
// A tree of B threads with a barrier at every step passes log2(B) + 1 of them; one that
// leaves the last 32 partial sums to one warp passes log2(B) - 4 or fewer.
bool barriers_below_one_warp(const version_counters& v) {
    if (v.global_store_requests == 0 || v.warps == 0) return false;
    const double threads_per_block = ratio(v.warps * 32, v.global_store_requests);
    const double barriers_per_block = ratio(v.barriers, v.global_store_requests);
    return barriers_per_block > std::log2(std::max(threads_per_block, 64.0)) - 4.0 + 0.5;
}

ladder_reading reduction_rung(const version_counters& v) {
    if (v.warp_shuffles > 0) {
        if (ratio(v.global_load_sectors, v.global_load_requests) >= wide_sectors)
            return {"warp shuffles and wide loads (lab 4 B)", ""};
        return {"warp shuffles with 4-byte loads (lab 4 A)", "float4 loads, four elements per load (lab 4 B)"};
    }
    if (ratio(v.excess_warp_requests, v.elements) > idle)
        return {"interleaved addressing with a divergent branch (lab 1)",
                "give each step's working threads contiguous indices (lab 2 A)"};
    if (bank_excess(v) > conflicts)
        return {"a strided index: no divergence, bank conflicts left (lab 2 A)", "sequential addressing (lab 2 B)"};
    if (ratio(v.elements, v.warps * 32) < two_per_thread)
        return {"sequential addressing without the first add during the load (lab 2 B)",
                "add two elements during the load (lab 3 A)"};
    if (barriers_below_one_warp(v))
        return {"two or more elements added during the load, then a tree with a barrier at every step down to the "
                "last (lab 3 A)",
                "unroll the last warp (lab 3 B)"};
    return {"the last warp unrolled (lab 3 B or C: a fully unrolled tree moves the same memory, so the counters "
            "cannot tell them apart)",
            "warp shuffles and a grid-stride loop (lab 4 A)"};
}

// Lab 5's padded records keep 0.09 excess wavefronts per element (their tail), the
// unpadded ones 1.9; the padded tile 0, the unpadded one 0.97.
constexpr double bank_lab_conflicts = 0.5;

ladder_reading bank_rung(const version_counters& v) {
    const std::uint64_t wf = v.shared_load_wavefronts + v.shared_store_wavefronts + v.shared_atomic_wavefronts;
    if (wf == 0) return {"no shared memory at all", "keep the data in a shared array, padded (this lab)"};
    if (bank_excess(v) > bank_lab_conflicts)
        return {"a shared array with bank conflicts: lanes of a warp hit one bank at different words",
                "pad the array by one word per row (the [32][33] tile)"};
    return {"a conflict-free shared array (padded, or otherwise arranged)", ""};
}

}  // namespace

ladder_reading ladder_rung(const std::vector<version_counters>& counters, const std::string& ladder) {
    const version_counters* largest = nullptr;
    for (const auto& v : counters)
        if (v.version == "student" && (largest == nullptr || v.elements > largest->elements)) largest = &v;
    if (largest == nullptr || largest->elements == 0) return {};
    return ladder == "reduction" ? reduction_rung(*largest) : bank_rung(*largest);
}

std::string ladder_words(const ladder_reading& r) {
    if (r.reached.empty()) return "";
    return "behaves like " + r.reached + (r.next.empty() ? "; the top of this ladder" : "; next: " + r.next);
}

}  // namespace course
