#pragma once
// The state of the block that the emulator is running, shared by the block scheduler
// (scheduler.cpp: fibers, barriers, launches) and the warp operations (warp_ops.cpp).
// Internal to the emulator; kernel code sees only emu::detail::thread_ids.
#include <cstdint>
#include <string>
#include <vector>

#include "emu/cuda_emu.hpp"
#include "emu/diagnostics.hpp"
#include "emu/emu_stats.hpp"
#include "emu/fiber.hpp"

namespace emu::detail {

enum class thread_state : std::uint8_t { ready, at_barrier, at_warp_op, done };

struct thread_ctx : thread_ids {
    fiber::context ctx;
    thread_state st = thread_state::ready;
    std::uint64_t value = 0;   // what it brought to a warp operation
    std::uint64_t result = 0;  // what it gets back from a warp operation or barrier
    int arg = 0;               // a shuffle's lane, delta or xor mask
    std::uintptr_t stack_ceiling = 0;  // its stack pointer where the course called the kernel
    std::uintptr_t stack_lo = 0, stack_hi = 0;  // its fiber's stack
};

struct warp_op_slot {
    bool active = false;
    int width = 32;
    warp_wait wait;
};

struct warp_ctx {
    unsigned exists = 0;  // the last warp of a block can be partial
    unsigned exited = 0;
    warp_op_slot ops[8];  // lanes with disjoint masks may wait at the same time
};

// One launch at a time; plain globals, so that the siglongjmp out of a faulting kernel
// skips no destructor.
struct block_ctx {
    const char* kernel = "";
    kernel_body body{};
    unsigned nthreads = 0;
    unsigned finished = 0;
    std::vector<thread_ctx> threads;
    std::vector<warp_ctx> warps;
    barrier_wait barrier;
    int barrier_accum = 0;  // what the barrier's predicates combine to so far
    std::vector<unsigned> ready;
    std::size_t ready_head = 0;
    fiber::context scheduler;
    std::string error;
};
extern block_ctx g_block;

// The running launch's counters, so that a warp operation counts with one increment and
// no lookup.
extern kernel_stats* g_stats_now;

inline thread_ctx& current_thread() { return *static_cast<thread_ctx*>(g_current); }

inline std::string where(const thread_ctx& t) { return diag::thread_where(g_block.kernel, g_block_idx, t.idx); }

// Blocks the running thread until make_ready names it again.
void yield(thread_ctx& t);
void make_ready(unsigned thread);

}  // namespace emu::detail
