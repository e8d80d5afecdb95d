#include "emu/trace_spaces.hpp"

#include <link.h>

#include "emu/block_state.hpp"
#include "emu/device_memory.hpp"
#include "emu/lab_sections.hpp"

namespace emu::trace {

static_storage g_static;
device_space g_device;

void find_static_storage() {
    if (g_static.hi != 0) return;
    // The first object dl_iterate_phdr reports is the executable: its writable segments.
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void*) {
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const auto& ph = info->dlpi_phdr[i];
                if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_W)) continue;
                const std::uintptr_t lo = info->dlpi_addr + ph.p_vaddr, hi = lo + ph.p_memsz;
                g_static.lo = g_static.lo == 0 ? lo : std::min(g_static.lo, lo);
                g_static.hi = std::max(g_static.hi, hi);
            }
            return 1;
        },
        nullptr);
    auto exclude = [](const void* p, std::size_t n) {
        const auto a = reinterpret_cast<std::uintptr_t>(p);
        g_static.excluded.emplace_back(a, a + n);
    };
    exclude(&detail::g_current, sizeof detail::g_current);
    exclude(&detail::g_block_idx, sizeof detail::g_block_idx);
    exclude(&detail::g_block_dim, sizeof detail::g_block_dim);
    exclude(&detail::g_grid_dim, sizeof detail::g_grid_dim);
    g_static.arrays = {__start_emu_shared, __stop_emu_shared};
    g_static.grid_zeroed = {__start_emu_static, __stop_emu_static};
    g_static.grid_data = {__start_emu_static_data, __stop_emu_static_data};
    g_static.constants = {__start_emu_constant, __stop_emu_constant};
}

void find_device_ranges() {
    g_device.ranges = memory::device_ranges();
    g_device.lo = g_device.ranges.empty() ? 0 : g_device.ranges.front().first;
    g_device.hi = g_device.ranges.empty() ? 0 : g_device.ranges.back().second;
}

}  // namespace emu::trace
