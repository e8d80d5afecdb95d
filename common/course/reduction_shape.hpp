#pragma once
#include <algorithm>
#include <cstddef>

namespace course {

// How a reduction kernel covers its input. Each block of `block` threads consumes
// block * items_per_thread elements, unless max_grid caps the grid (a grid-stride
// kernel then loops over the rest).
struct reduction_shape {
    unsigned block = 256;
    unsigned items_per_thread = 1;
    unsigned max_grid = 0;  // 0: no cap

    std::size_t elements_per_block() const { return std::size_t{block} * items_per_thread; }

    std::size_t grid_for(std::size_t n) const {
        std::size_t g = (n + elements_per_block() - 1) / elements_per_block();
        if (max_grid != 0) g = std::min<std::size_t>(g, max_grid);
        return std::max<std::size_t>(g, 1);
    }

    // Partial sums between passes live in two ping-pong regions: the first pass's
    // output and the second pass's output (later passes reuse them). The second region
    // starts 16-byte aligned, so a pass may read its input as float4.
    std::size_t second_region(std::size_t n) const { return (grid_for(n) + 3) / 4 * 4; }
    std::size_t scratch_elems(std::size_t n) const {
        const std::size_t g1 = grid_for(n);
        if (g1 <= 1) return 0;
        const std::size_t g2 = grid_for(g1);
        return second_region(n) + (g2 > 1 ? g2 : 0);
    }
};

}  // namespace course
