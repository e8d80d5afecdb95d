// Warp operations (__syncwarp, shuffles, votes): each lane waits until every lane its mask
// names has made the same call, then all get their results together, as on a GPU. A mask
// that names lanes that cannot arrive is diagnosed instead of hanging.
#include "emu/block_state.hpp"
#include "emu/trace.hpp"

namespace emu::detail {
namespace {

bool g_perturb_shuffles = false;

bool is_shuffle(warp_op_kind k) {
    return k == warp_op_kind::shfl_idx || k == warp_op_kind::shfl_up || k == warp_op_kind::shfl_down ||
           k == warp_op_kind::shfl_xor;
}

unsigned source_lane(warp_op_kind kind, unsigned lane, int arg, int width) {
    const unsigned seg = lane & ~static_cast<unsigned>(width - 1);
    const unsigned seg_end = seg + static_cast<unsigned>(width);
    switch (kind) {
    case warp_op_kind::shfl_idx: return seg + (static_cast<unsigned>(arg) & static_cast<unsigned>(width - 1));
    case warp_op_kind::shfl_up: {
        const unsigned d = static_cast<unsigned>(arg);
        return lane - seg >= d ? lane - d : lane;
    }
    case warp_op_kind::shfl_down: {
        const unsigned d = static_cast<unsigned>(arg);
        return lane + d < seg_end ? lane + d : lane;
    }
    case warp_op_kind::shfl_xor: {
        const unsigned s = lane ^ static_cast<unsigned>(arg);
        return s < seg_end ? s : lane;  // CUDA: a lane cannot read a later group
    }
    default: return lane;
    }
}

// All lanes of the mask have arrived: hand every lane its result, wake them in lane order.
void complete(warp_op_slot& slot, unsigned warp) {
    auto& b = g_block;
    const warp_wait& op = slot.wait;
    const unsigned base = warp * 32;
    if (is_shuffle(op.kind) && g_stats_now != nullptr) ++g_stats_now->warp_shuffles;
    unsigned votes = 0;
    for (unsigned l = 0; l < 32; ++l)
        if ((op.mask >> l & 1u) && b.threads[base + l].value != 0) votes |= 1u << l;
    for (unsigned l = 0; l < 32; ++l) {
        if (!(op.mask >> l & 1u)) continue;
        thread_ctx& t = b.threads[base + l];
        switch (op.kind) {
        case warp_op_kind::sync: t.result = 0; break;
        case warp_op_kind::ballot: t.result = votes; break;
        case warp_op_kind::any: t.result = votes != 0; break;
        case warp_op_kind::all: t.result = votes == op.mask; break;
        default: {
            const unsigned src = source_lane(op.kind, l, t.arg, slot.width);
            if (!(op.mask >> src & 1u)) throw kernel_error(diag::shuffle_reads_outside_mask(where(t), op, src));
            t.result = b.threads[base + src].value;
            // 32-bit values (float, int) in the low word: bit 23; 64-bit ones: bit 52.
            if (g_perturb_shuffles) t.result ^= t.result >> 32 == 0 ? std::uint64_t{1} << 23 : std::uint64_t{1} << 52;
        }
        }
    }
    slot.active = false;
    trace::warp_op_done(warp, op.mask);
    for (unsigned l = 0; l < 32; ++l)
        if (op.mask >> l & 1u) make_ready(base + l);
}

// The slot that lanes of `call`'s mask wait at, or a free one for the first of them;
// throws where the call cannot meet the others.
warp_op_slot& slot_for(warp_ctx& w, const thread_ctx& t, const warp_wait& call, int width) {
    for (auto& o : w.ops) {
        if (!o.active || o.wait.mask != call.mask) continue;
        if (o.wait.kind != call.kind || o.width != width)
            throw kernel_error(diag::different_call_same_mask(where(t), call, o.wait));
        return o;
    }
    for (auto& o : w.ops)
        if (o.active && (o.wait.mask & call.mask)) throw kernel_error(diag::overlapping_masks(where(t), call, o.wait));
    for (auto& o : w.ops) {
        if (!o.active) {
            o = warp_op_slot{true, width, call};
            return o;
        }
    }
    throw kernel_error(diag::too_many_warp_ops(where(t), call));
}

}  // namespace

std::uint64_t warp_op(warp_op_kind kind, unsigned mask, std::uint64_t value, int arg, int width, const char* file,
                      int line) {
    auto& b = g_block;
    thread_ctx& t = current_thread();
    const unsigned lane = t.linear % 32;
    const unsigned bit = 1u << lane;
    warp_ctx& w = b.warps[t.linear / 32];
    const warp_wait call{kind, {file, line, reinterpret_cast<std::uintptr_t>(__builtin_return_address(0))}, mask, 0};
    if (width <= 0 || width > 32 || (width & (width - 1)) != 0)
        throw kernel_error(diag::bad_width(where(t), call, width));
    if (!(mask & bit)) throw kernel_error(diag::mask_skips_caller(where(t), call, lane));
    if (mask & ~w.exists)
        throw kernel_error(diag::mask_names_missing_lanes(where(t), call, mask & ~w.exists, b.nthreads));
    if (mask & w.exited) throw kernel_error(diag::mask_names_returned_lanes(where(t), call, mask & w.exited));
    warp_op_slot& slot = slot_for(w, t, call, width);
    t.value = value;
    t.arg = arg;
    t.st = thread_state::at_warp_op;
    slot.wait.arrived |= bit;
    if (slot.wait.arrived == slot.wait.mask) complete(slot, t.linear / 32);
    yield(t);
    return t.result;
}

}  // namespace emu::detail

namespace emu {

unsigned activemask() {
    const auto& t = *detail::g_current;
    const auto& w = detail::g_block.warps[t.linear / 32];
    return w.exists & ~w.exited;
}

}  // namespace emu

namespace emu {
void set_perturb_shuffles(bool on) { detail::g_perturb_shuffles = on; }
}  // namespace emu
