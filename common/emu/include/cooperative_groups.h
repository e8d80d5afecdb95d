#pragma once
// Cooperative groups for the CPU emulator: what a lab file reaches with
// `#include <cooperative_groups.h>` when it is compiled with COURSE_EMULATE. This folder is
// on the include path of emulated builds only; on the GPU the same line finds the CUDA
// toolkit's header. The subset is what the labs' warp code needs (docs/emulator.md):
//
//   this_thread_block()        thread_block: sync, thread_rank, size/num_threads,
//                              group_index, thread_index, dim_threads
//   tiled_partition<N>(g)      thread_block_tile<N> (N = 1, 2, 4, ..., 32) of a block or of a
//                              larger tile: sync, thread_rank, size/num_threads,
//                              meta_group_rank/size, shfl, shfl_down/up/xor, any, all, ballot
//   tiled_partition(g, n)      a thread_group: sync, thread_rank, size/num_threads
//   sync(g), thread_rank(g), group_size(g)
//
// Every collective is the emulator's own barrier or warp operation: a tile's calls use the
// mask of its lanes and, for shuffles, `width` N, exactly what the CUDA header compiles them
// to. So a tile.sync() that a lane never reaches is diagnosed as a __syncwarp() with that
// mask, and each tile shuffle counts as one warp shuffle. Each call records the student's
// line through __builtin_FILE()/__builtin_LINE() default arguments (evaluated at the call).
//
// Everything here is inline and calls only emu::detail::warp_op and block_barrier, which
// the guard's object check allows in an emulated lab object. The collectives are always
// inlined (EMU_AT_CALLER), so a diagnosis can name the kernel line a helper was called from.
#include "emu/cuda_emu.hpp"

namespace cooperative_groups {

namespace emu_detail {

inline unsigned block_rank() { return ::emu::detail::g_current->linear; }
inline unsigned lane_id() { return block_rank() % 32; }
inline unsigned block_threads() {
    const dim3& d = ::emu::detail::g_block_dim;
    return d.x * d.y * d.z;
}
constexpr bool valid_tile_size(unsigned n) { return n >= 1 && n <= 32 && (n & (n - 1)) == 0; }
// The lanes of the calling thread's tile of `size` lanes (tiles never straddle warps).
inline unsigned tile_mask(unsigned size) {
    if (size >= 32) return 0xffffffffu;
    return ((1u << size) - 1u) << (lane_id() & ~(size - 1u));
}
// Lets tiled_partition build tiles without giving students a constructor CUDA lacks.
struct tile_key {
    explicit tile_key() = default;
};

}  // namespace emu_detail

class thread_group;

// The block the calling thread belongs to.
class thread_block {
public:
    EMU_AT_CALLER static void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        ::emu::syncthreads_at(file, line);
    }
    static unsigned thread_rank() { return emu_detail::block_rank(); }
    static unsigned num_threads() { return emu_detail::block_threads(); }
    static unsigned size() { return num_threads(); }
    static dim3 group_index() { return dim3(blockIdx); }
    static dim3 thread_index() { return dim3(threadIdx); }
    static dim3 dim_threads() { return blockDim; }
    static dim3 group_dim() { return blockDim; }  // CUDA's older name of dim_threads()
    operator thread_group() const;
};

inline thread_block this_thread_block() { return thread_block(); }

// A tile of `Size` consecutive threads of a block, all in one warp. ParentT is the group it
// was cut from; thread_block_tile<Size> (ParentT void) is what any of them converts to.
template <unsigned Size, typename ParentT = void>
class thread_block_tile;

template <unsigned Size>
class thread_block_tile<Size, void> {
    static_assert(emu_detail::valid_tile_size(Size), "a thread_block_tile has 1, 2, 4, 8, 16 or 32 threads");

public:
    thread_block_tile(emu_detail::tile_key, unsigned meta_rank, unsigned meta_size)
        : meta_rank_(meta_rank), meta_size_(meta_size) {}

    static constexpr unsigned num_threads() { return Size; }
    static constexpr unsigned size() { return Size; }
    static unsigned thread_rank() { return emu_detail::block_rank() & (Size - 1u); }
    // This tile's index among the tiles cut from its parent, and how many there are.
    unsigned meta_group_rank() const { return meta_rank_; }
    unsigned meta_group_size() const { return meta_size_; }

    EMU_AT_CALLER static void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        ::emu::syncwarp_at(file, line, mask());
    }

    template <typename T>
    EMU_AT_CALLER T shfl(T var, int src_rank, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return ::emu::shfl_at(::emu::warp_op_kind::shfl_idx, file, line, mask(), var, src_rank, Size);
    }
    template <typename T>
    EMU_AT_CALLER T shfl_down(T var, unsigned delta, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return ::emu::shfl_at(::emu::warp_op_kind::shfl_down, file, line, mask(), var, static_cast<int>(delta), Size);
    }
    template <typename T>
    EMU_AT_CALLER T shfl_up(T var, unsigned delta, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return ::emu::shfl_at(::emu::warp_op_kind::shfl_up, file, line, mask(), var, static_cast<int>(delta), Size);
    }
    template <typename T>
    EMU_AT_CALLER T shfl_xor(T var, unsigned lane_mask, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return ::emu::shfl_at(::emu::warp_op_kind::shfl_xor, file, line, mask(), var, static_cast<int>(lane_mask),
                              Size);
    }

    EMU_AT_CALLER int any(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return static_cast<int>(::emu::ballot_at(::emu::warp_op_kind::any, file, line, mask(), predicate));
    }
    EMU_AT_CALLER int all(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return static_cast<int>(::emu::ballot_at(::emu::warp_op_kind::all, file, line, mask(), predicate));
    }
    // Bit k is the predicate of the tile's thread of rank k.
    EMU_AT_CALLER unsigned ballot(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        const unsigned votes = ::emu::ballot_at(::emu::warp_op_kind::ballot, file, line, mask(), predicate);
        return votes >> (emu_detail::lane_id() & ~(Size - 1u));
    }

    operator thread_group() const;

private:
    static unsigned mask() { return emu_detail::tile_mask(Size); }

    unsigned meta_rank_;
    unsigned meta_size_;
};

template <unsigned Size, typename ParentT>
class thread_block_tile : public thread_block_tile<Size, void> {
public:
    thread_block_tile(emu_detail::tile_key key, const ParentT& parent)
        : thread_block_tile<Size, void>(key, static_cast<unsigned>(parent.thread_rank()) / Size,
                                        (static_cast<unsigned>(parent.num_threads()) + Size - 1u) / Size) {}
};

namespace emu_detail {
// Whether tiles of Size threads can be cut from a ParentT: any block, a smaller-or-equal tile.
template <unsigned Size, typename ParentT>
struct fits_in : std::false_type {};
template <unsigned Size>
struct fits_in<Size, thread_block> : std::true_type {};
template <unsigned Size, unsigned ParentSize, typename GrandParentT>
struct fits_in<Size, thread_block_tile<ParentSize, GrandParentT>> : std::bool_constant<ParentSize % Size == 0> {};
}  // namespace emu_detail

// The parent's threads cut into tiles of Size consecutive ranks; the caller's tile.
template <unsigned Size, typename ParentT>
thread_block_tile<Size, ParentT> tiled_partition(const ParentT& parent) {
    static_assert(emu_detail::valid_tile_size(Size), "tiled_partition<N>: N must be 1, 2, 4, 8, 16 or 32");
    static_assert(emu_detail::fits_in<Size, ParentT>::value, "tiled_partition<N> of a tile: N must divide its size");
    return thread_block_tile<Size, ParentT>(emu_detail::tile_key{}, parent);
}

// A group whose kind is known only when the kernel runs: the block, or a tile of a size
// given at run time (tiled_partition(parent, n)). A size that is not a power of two up to
// 32 is reported by its first sync(), as the emulator reports a bad shuffle width.
class thread_group {
public:
    thread_group(emu_detail::tile_key, bool is_block, unsigned tile_size)
        : is_block_(is_block), tile_size_(tile_size) {}

    EMU_AT_CALLER void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        if (is_block_) {
            ::emu::syncthreads_at(file, line);
            return;
        }
        const bool valid = emu_detail::valid_tile_size(tile_size_);
        const unsigned mask = valid ? emu_detail::tile_mask(tile_size_) : 1u << emu_detail::lane_id();
        ::emu::detail::warp_op(::emu::warp_op_kind::sync, mask, 0, 0, static_cast<int>(tile_size_), file, line);
    }
    unsigned thread_rank() const {
        return is_block_ ? emu_detail::block_rank() : emu_detail::block_rank() % (tile_size_ == 0 ? 1u : tile_size_);
    }
    unsigned num_threads() const { return is_block_ ? emu_detail::block_threads() : tile_size_; }
    unsigned size() const { return num_threads(); }

private:
    bool is_block_;
    unsigned tile_size_;
};

inline thread_block::operator thread_group() const { return thread_group(emu_detail::tile_key{}, true, 0); }

template <unsigned Size>
thread_block_tile<Size, void>::operator thread_group() const {
    return thread_group(emu_detail::tile_key{}, false, Size);
}

inline thread_group tiled_partition(const thread_group& parent, unsigned tile_size) {
    (void)parent;  // tiles are cut from the block's ranks, which every parent shares
    return thread_group(emu_detail::tile_key{}, false, tile_size);
}
inline thread_group tiled_partition(const thread_block& parent, unsigned tile_size) {
    return tiled_partition(static_cast<thread_group>(parent), tile_size);
}

template <typename Group>
EMU_AT_CALLER void sync(const Group& g, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    g.sync(file, line);
}
template <typename Group>
auto thread_rank(const Group& g) -> decltype(g.thread_rank()) {
    return g.thread_rank();
}
template <typename Group>
auto group_size(const Group& g) -> decltype(g.num_threads()) {
    return g.num_threads();
}

// The calling thread alone, as a tile of one.
inline thread_block_tile<1, void> this_thread() {
    return thread_block_tile<1, void>(emu_detail::tile_key{}, emu_detail::block_rank(), emu_detail::block_threads());
}

}  // namespace cooperative_groups
