#pragma once
// What the emulated kernels did, counted per launch name: the grader's technique checks
// ask it whether a graded kernel really ran warp shuffles (on a GPU they read the SASS).
// Only the course's worker includes this; student code includes cuda_emu.hpp alone.
#include <cstdint>
#include <map>
#include <string>

namespace emu {

struct kernel_stats {
    std::uint64_t launches = 0;
    // Warp-level shuffles completed (__shfl_sync, _up, _down, _xor): one per call that
    // all lanes of its mask made together, as a GPU counts one SHFL per warp.
    std::uint64_t warp_shuffles = 0;
};

// Counts per launch name (the name course::launch was given) since the last reset.
std::map<std::string, kernel_stats> launch_stats();
void reset_launch_stats();

}  // namespace emu
