#pragma once
// How an instruction's counters grow, request by request and launch by launch, and merge
// from the processes of a block pool in launch order (trace_requests.cpp, block_pool.cpp).
// Internal to the emulator.
#include <algorithm>
#include <cstdint>

#include "emu/emu_stats.hpp"

namespace emu::trace {

// Keeps the request as the instruction's sample when it costs more than every earlier
// one: the first of the costliest, in launch order, on any number of cores.
inline void note_sample(instruction_counters& ins, std::uint64_t cost, std::uint32_t lanes,
                        const std::uintptr_t* address) {
    if (cost <= ins.sample.cost) return;
    ins.sample.cost = cost;
    ins.sample.lanes = lanes;
    for (unsigned l = 0; l < 32; ++l) ins.sample.address[l] = lanes >> l & 1u ? address[l] : 0;
}

inline void note_step(instruction_counters& ins, std::uint32_t step, std::uint32_t warp, std::uint32_t lanes) {
    if (ins.steps.size() < max_lane_steps) ins.steps.push_back({step, warp, lanes});
}

// Sums `c` into `into`; the sample stays the earlier one unless `c`'s costs more, the
// steps the first launch's.
inline void accumulate(instruction_counters& into, const instruction_counters& c) {
    into.shared = c.shared;
    into.op = c.op;
    into.width = std::max(into.width, c.width);
    into.requests += c.requests;
    into.cost += c.cost;
    into.ideal += c.ideal;
    into.excess_warps += c.excess_warps;
    into.lanes += c.lanes;
    note_sample(into, c.sample.cost, c.sample.lanes, reinterpret_cast<const std::uintptr_t*>(c.sample.address));
    if (into.steps.empty()) into.steps = c.steps;
}

}  // namespace emu::trace
