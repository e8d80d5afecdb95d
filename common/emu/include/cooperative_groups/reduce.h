#pragma once
// cooperative_groups::reduce for the CPU emulator (the CUDA toolkit's header of the same
// name on the GPU): a tile's values combined with an operator, the result in every thread.
// It must compile and run so that a lab file using it can be graded; the course's policy
// counts it as a library reduction all the same (no_libraries, grader/policy/).
//
// The operators are CUDA's: plus, bit_and/or/xor, and less / greater, which give the
// smaller / larger of two values (a minimum and a maximum, not comparisons).
#include <type_traits>

#include "../cooperative_groups.h"

namespace cooperative_groups {

template <typename T>
struct plus {
    T operator()(T a, T b) const { return a + b; }
};
template <typename T>
struct less {
    T operator()(T a, T b) const { return b < a ? b : a; }
};
template <typename T>
struct greater {
    T operator()(T a, T b) const { return a < b ? b : a; }
};
template <typename T>
struct bit_and {
    T operator()(T a, T b) const { return a & b; }
};
template <typename T>
struct bit_or {
    T operator()(T a, T b) const { return a | b; }
};
template <typename T>
struct bit_xor {
    T operator()(T a, T b) const { return a ^ b; }
};

// A butterfly over the tile: log2(Size) xor shuffles, after which every thread holds the
// combination of all the tile's values (each shuffle counts as one warp shuffle).
template <unsigned Size, typename T, typename Op>
auto reduce(const thread_block_tile<Size, void>& tile, T value, Op op, const char* file = __builtin_FILE(),
            int line = __builtin_LINE()) -> std::decay_t<decltype(op(value, value))> {
    using result = std::decay_t<decltype(op(value, value))>;
    result v = static_cast<result>(value);
    for (unsigned step = Size / 2; step > 0; step /= 2) v = op(v, tile.shfl_xor(v, step, file, line));
    return v;
}

}  // namespace cooperative_groups
