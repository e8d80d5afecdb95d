#pragma once
// What one warp-level request of a traced launch costs (emu/trace.hpp), beside
// course/bank_wavefronts.hpp's count of a shared load or store. Internal to the emulator.
#include <algorithm>
#include <cstdint>

namespace emu::trace {

// 32-byte sectors that the lanes in `lanes` touch with accesses of `size` bytes.
inline unsigned distinct_sectors(const std::uintptr_t* address, std::uint32_t lanes, unsigned size) {
    std::uintptr_t s[64];
    unsigned n = 0;
    for (unsigned l = 0; l < 32; ++l) {
        if (!(lanes >> l & 1u)) continue;
        s[n++] = address[l] / 32;
        const std::uintptr_t last = (address[l] + size - 1) / 32;
        if (last != s[n - 1]) s[n++] = last;
    }
    std::sort(s, s + n);
    return static_cast<unsigned>(std::unique(s, s + n) - s);
}

// The phases of a shared request in which some lane takes part (a warp for 4-byte
// accesses, half-warps for 8, quarter-warps for 16): its wavefronts with no conflict.
inline unsigned ideal_wavefronts(std::uint32_t lanes, unsigned width) {
    const unsigned per_phase = width == 16 ? 8 : width == 8 ? 16 : 32;
    const std::uint32_t phase_mask = per_phase == 32 ? ~0u : (1u << per_phase) - 1;
    unsigned n = 0;
    for (unsigned first = 0; first < 32; first += per_phase) n += (lanes >> first & phase_mask) != 0;
    return n;
}

// A shared atomic's lanes on one bank are served one after another, lanes on one word
// too: there is no broadcast for a read-modify-write.
inline unsigned atomic_wavefronts(const std::uintptr_t* address, std::uint32_t lanes) {
    unsigned per_bank[32] = {}, most = 0;
    for (unsigned l = 0; l < 32; ++l)
        if (lanes >> l & 1u) most = std::max(most, ++per_bank[(address[l] / 4) % 32]);
    return most;
}

}  // namespace emu::trace
