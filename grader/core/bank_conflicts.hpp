#pragma once
// How many wavefronts one warp-wide shared-memory access takes on NVIDIA GPUs since
// Volta: 32 banks of 4 bytes. A 4-byte access is served for all 32 lanes at once; an
// 8-byte access in two phases of 16 lanes (half-warps); a 16-byte access in four phases
// of 8 lanes (quarter-warps). Within a phase, lanes that touch different 4-byte words of
// the same bank conflict and are served one after another; lanes that touch the same word
// share it (a broadcast). grader/tests/test_bank_conflicts.cpp holds Nsight Compute's measurements as the test.
#include <array>
#include <cstdint>
#include <string>

namespace course {

struct lane_access {
    std::uint32_t address = 0;  // byte address in shared memory
    bool active = true;
};
using warp_access = std::array<lane_access, 32>;

// Wavefronts for one request; width is 4, 8 or 16 bytes. 0 when no lane is active.
unsigned shared_wavefronts(const warp_access& access, unsigned width);

// Lane k accesses element k * stride of `width`-byte elements, starting at `offset` bytes.
warp_access strided_access(unsigned stride, unsigned width, std::uint32_t offset = 0);

// A readable map of which lanes land in which bank, ending with the wavefront count.
std::string bank_map(const warp_access& access, unsigned width);

}  // namespace course
