#include "core/bank_conflicts.hpp"

#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "course/bank_wavefronts.hpp"

namespace course {

namespace {

constexpr unsigned banks = 32;
constexpr unsigned bank_bytes = 4;

unsigned lanes_per_phase(unsigned width) {
    switch (width) {
    case 4: return 32;
    case 8: return 16;
    case 16: return 8;
    }
    throw std::invalid_argument("access width must be 4, 8 or 16 bytes");
}

}  // namespace

unsigned shared_wavefronts(const warp_access& access, unsigned width) {
    lanes_per_phase(width);  // rejects a width other than 4, 8 or 16
    std::uint32_t address[32];
    std::uint32_t active = 0;
    for (unsigned lane = 0; lane < 32; ++lane) {
        address[lane] = access[lane].address;
        if (access[lane].active) active |= 1u << lane;
    }
    return bank_wavefronts(address, active, width);
}

warp_access strided_access(unsigned stride, unsigned width, std::uint32_t offset) {
    warp_access a;
    for (unsigned lane = 0; lane < 32; ++lane) a[lane].address = offset + lane * stride * width;
    return a;
}

std::string bank_map(const warp_access& access, unsigned width) {
    const unsigned per_phase = lanes_per_phase(width);
    std::string out = fmt::format("{}-byte accesses, {} lanes per phase, 32 banks of 4 bytes\n", width, per_phase);
    for (unsigned first = 0; first < 32; first += per_phase) {
        if (per_phase < 32) out += fmt::format("phase {} (lanes {}-{}):\n", first / per_phase, first, first + per_phase - 1);
        std::array<std::vector<unsigned>, banks> lanes_in_bank;
        for (unsigned lane = first; lane < first + per_phase; ++lane) {
            if (!access[lane].active) continue;
            for (unsigned b = 0; b < width; b += bank_bytes)
                lanes_in_bank[((access[lane].address + b) / bank_bytes) % banks].push_back(lane);
        }
        for (unsigned bank = 0; bank < banks; ++bank) {
            if (lanes_in_bank[bank].empty()) continue;
            std::string lanes;
            for (unsigned l : lanes_in_bank[bank]) lanes += (lanes.empty() ? "" : " ") + std::to_string(l);
            out += fmt::format("  bank {:2}: lanes {}\n", bank, lanes);
        }
    }
    const unsigned w = shared_wavefronts(access, width);
    const unsigned ideal = width / bank_bytes;
    out += fmt::format("{} wavefront(s) for this request; the minimum for {}-byte accesses is {}{}\n", w, width, ideal,
                       w == ideal ? " (conflict-free)" : fmt::format(" ({}-way conflict)", w / ideal));
    return out;
}

}  // namespace course
