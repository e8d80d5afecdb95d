#pragma once
// Which memory an address of a traced access is. Shared memory is the executable's
// writable static storage (where `__shared__` arrays, static in the emulator, live) less
// the emulator's own globals that kernel code reads, the `__constant__` variables (a GPU
// reads them through its constant cache, which neither counter sees) and the `__device__`
// variables; global memory is the emulated device allocations and the `__device__`
// variables (one per grid, as on a GPU, and never written by a block before it reads them:
// initcheck looks at shared memory only); anything else (stacks, the host's heap) is not
// device memory and is ignored. Inline: classify runs on every access. Internal to the
// emulator.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

namespace emu::trace {

enum class space { none, shared, global };

// Bounds tested with one subtraction (empty where the worker has no such section).
struct address_range {
    std::uintptr_t lo = 0, bytes = 0;
    address_range() = default;
    address_range(const char* start, const char* stop) {
        if (start != nullptr && stop > start) {
            lo = reinterpret_cast<std::uintptr_t>(start);
            bytes = static_cast<std::uintptr_t>(stop - start);
        }
    }
    bool holds(std::uintptr_t a) const { return a - lo < bytes; }
};

struct static_storage {
    std::uintptr_t lo = 0, hi = 0;  // the executable's writable segments
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> excluded;  // the emulator's globals
    // The emu_shared section (the __shared__ arrays), a quick first test of classify; the
    // __device__ variables' two sections and the __constant__ variables'.
    address_range arrays, grid_zeroed, grid_data, constants;
};
extern static_storage g_static;

struct device_space {
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges;  // sorted
    std::uintptr_t lo = 0, hi = 0;
};
extern device_space g_device;

void find_static_storage();  // once
void find_device_ranges();   // at each traced launch: the allocations now

inline space classify(std::uintptr_t a) {
    // Most accesses are to the __shared__ arrays, where none of the emulator's globals is.
    if (g_static.arrays.holds(a)) return space::shared;
    if (g_static.grid_zeroed.holds(a) || g_static.grid_data.holds(a)) return space::global;
    if (g_static.constants.holds(a)) return space::none;
    if (a >= g_device.lo && a < g_device.hi) {
        const auto& r = g_device.ranges;
        auto it = std::upper_bound(r.begin(), r.end(), std::make_pair(a, ~std::uintptr_t{0}));
        if (it != r.begin() && a < std::prev(it)->second) return space::global;
        return space::none;
    }
    if (a >= g_static.lo && a < g_static.hi) {
        for (const auto& [lo, hi] : g_static.excluded)
            if (a >= lo && a < hi) return space::none;
        return space::shared;
    }
    return space::none;
}

}  // namespace emu::trace
