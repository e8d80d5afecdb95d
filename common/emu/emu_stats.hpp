#pragma once
// What the emulated kernels did, counted per launch name: the grader's technique checks
// ask it whether a graded kernel really ran warp shuffles (on a GPU they read the SASS).
// Only the course's worker includes this; student code includes cuda_emu.hpp alone.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace emu {

struct memory_counters {  // summed over every traced launch of a kernel name
    std::uint64_t shared_load_requests = 0, shared_load_wavefronts = 0;
    std::uint64_t shared_store_requests = 0, shared_store_wavefronts = 0;
    std::uint64_t global_load_requests = 0, global_load_sectors = 0;  // 32-byte sectors
    std::uint64_t global_store_requests = 0, global_store_sectors = 0;
    std::uint64_t request_lanes = 0;     // lanes that took part in all those requests, summed
    std::uint64_t partial_requests = 0;  // requests where fewer lanes took part than the warp has threads
    std::uint64_t barriers = 0;          // block-wide barriers completed, one per block
};

struct hazard {  // the first few of a kernel, in the order found
    std::string kind;     // "race" or "uninitialized"
    std::string message;  // both lines and both threads for a race
};

struct kernel_stats {
    std::uint64_t launches = 0;
    // Warp-level shuffles completed (__shfl_sync, _up, _down, _xor): one per call that
    // all lanes of its mask made together, as a GPU counts one SHFL per warp.
    std::uint64_t warp_shuffles = 0;
    bool traced = false;  // launched with tracing on: `memory` and `hazards` are filled
    memory_counters memory;
    std::vector<hazard> hazards;
    std::uint64_t hazard_count = 0;
};

// Memory accounting and hazard checks for the launches from now on (off by default).
void set_tracing(bool on);

// Counts per launch name (the name course::launch was given) since the last reset.
std::map<std::string, kernel_stats> launch_stats();
void reset_launch_stats();

}  // namespace emu
