#pragma once
// How many wavefronts one warp-wide shared-memory request takes on NVIDIA GPUs since
// Volta: 32 banks of 4 bytes. A 4-byte access is served for all 32 lanes at once; an
// 8-byte access in two phases of 16 lanes (half-warps); a 16-byte access in four phases
// of 8 lanes (quarter-warps). Within a phase, lanes that touch different 4-byte words of
// the same bank conflict and are served one after another; lanes that touch the same word
// share it (a broadcast). grader/tests/test_bank_conflicts.cpp holds Nsight Compute's
// measurements as the test.
//
// Header-only and allocation-free: the grader's bank calculator (grader/core/bank_conflicts)
// and the CPU emulator's per-request accounting (common/emu/trace_requests.cpp, once per
// traced request) both count with this one function.
#include <algorithm>
#include <cstdint>

namespace course {

// `address[lane]` is the byte address of lane `lane` (only differences matter), lanes
// whose bit is clear in `active` take no part; `width` is 4, 8 or 16 (not checked here).
inline unsigned bank_wavefronts(const std::uint32_t* address, std::uint32_t active, unsigned width) {
    const unsigned per_phase = width == 16 ? 8 : width == 8 ? 16 : 32;
    const unsigned words_per_lane = width / 4;
    unsigned total = 0;
    for (unsigned first = 0; first < 32; first += per_phase) {
        std::uint32_t words[32];  // per_phase * words_per_lane is always 32
        unsigned n = 0;
        for (unsigned lane = first; lane < first + per_phase; ++lane) {
            if (!(active >> lane & 1u)) continue;
            for (unsigned w = 0; w < words_per_lane; ++w) words[n++] = (address[lane] + 4 * w) / 4;
        }
        if (n == 0) continue;
        std::sort(words, words + n);
        n = static_cast<unsigned>(std::unique(words, words + n) - words);
        unsigned per_bank[32] = {};
        unsigned phase = 0;
        for (unsigned i = 0; i < n; ++i) phase = std::max(phase, ++per_bank[words[i] % 32]);
        total += phase;
    }
    return total;
}

}  // namespace course
