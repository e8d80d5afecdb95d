// Runs emulated blocks: one fiber per thread, real barriers, and a launch that stops with
// a diagnosis (diagnostics.cpp words it) wherever a GPU would hang or leave the result
// undefined. The warp operations are in warp_ops.cpp; block_pool.cpp spreads a large
// launch's blocks over the cores.
#include <csetjmp>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "emu/access_check.hpp"
#include "emu/block_pool.hpp"
#include "emu/block_state.hpp"
#include "emu/device_memory.hpp"
#include "emu/fault_guard.hpp"
#include "emu/trace.hpp"

// The block's __shared__ arrays (cuda_emu.hpp, grader/rules/rules_object_flow.hpp).
extern "C" {
extern char __start_emu_shared[] __attribute__((weak));
extern char __stop_emu_shared[] __attribute__((weak));
extern char __start_emu_local[] __attribute__((weak));
extern char __stop_emu_local[] __attribute__((weak));
}

namespace emu::detail {

thread_ids* g_current = nullptr;
uint3 g_block_idx{};
dim3 g_block_dim;
dim3 g_grid_dim;
block_ctx g_block;
kernel_stats* g_stats_now = nullptr;

namespace {
std::map<std::string, kernel_stats> g_stats;  // per launch name

// The thread queued after the one about to run resumes when that one blocks. Its stack was
// last touched a whole block of switches ago, and resuming it is a chain of dependent
// loads (its saved stack pointer, the registers there, the frame pointer, the frames above):
// asking for those lines now overlaps their misses with the next thread's run.
// Always inlined: gcc (its modref pass) takes a call of a function that only prefetches for one
// without effect, and drops it.
[[gnu::always_inline]] inline void prefetch_after(const block_ctx& b) {
    if (b.ready_head >= b.ready.size()) return;
    const thread_ctx& after = b.threads[b.ready[b.ready_head]];
    __builtin_prefetch(&after.result);
    // From two lines below the saved stack pointer (the access callbacks' frames, which its
    // kernel code calls first) to the kernel's frame above (past a fresh fiber's stack top:
    // a prefetch never faults). Integer arithmetic, since those lines may lie outside the
    // stack. The ucontext backend keeps no stack pointer here.
    const auto sp = reinterpret_cast<std::uintptr_t>(after.ctx.sp);
    if (sp == 0) return;
    for (int line = -2; line < 6; ++line) __builtin_prefetch(reinterpret_cast<const void*>(sp + 64 * line));
}

}  // namespace

// Resumes the next ready thread directly (or the scheduler when none is ready), which
// halves the switches of a round trip through the scheduler.
void yield(thread_ctx& t) {
    auto& b = g_block;
    if (b.ready_head < b.ready.size() && b.error.empty()) {
        thread_ctx& next = b.threads[b.ready[b.ready_head++]];
        if (&next == &t) return;
        g_current = &next;
        prefetch_after(b);
        fiber::switch_to(t.ctx, next.ctx);
        return;
    }
    fiber::switch_to(t.ctx, b.scheduler);
}

void make_ready(unsigned thread) {
    auto& b = g_block;
    b.threads[thread].st = thread_state::ready;
    // The queue's consumed front is reclaimed: a block that loops through barriers until the
    // watchdog stops it (a `stride >= 0` loop on an unsigned) would otherwise grow it by a
    // block's threads per barrier, and run out of memory long before the watchdog fires.
    if (b.ready_head == b.ready.size()) {
        b.ready.clear();
        b.ready_head = 0;
    } else if (b.ready_head >= 4096 && 2 * b.ready_head >= b.ready.size()) {
        b.ready.erase(b.ready.begin(), b.ready.begin() + static_cast<std::ptrdiff_t>(b.ready_head));
        b.ready_head = 0;
    }
    b.ready.push_back(thread);
}

namespace {

void on_exit(thread_ctx& t) {
    auto& b = g_block;
    t.st = thread_state::done;
    ++b.finished;
    warp_ctx& w = b.warps[t.linear / 32];
    const unsigned bit = 1u << (t.linear % 32);
    w.exited |= bit;
    if (!b.error.empty()) return;
    if (b.barrier.count > 0) {
        b.error = diag::returned_during_barrier(where(t), b.barrier);
        return;
    }
    for (const auto& op : w.ops) {
        if (op.active && (op.wait.mask & bit) && !(op.wait.arrived & bit)) {
            b.error = diag::returned_during_warp_op(where(t), op.wait);
            return;
        }
    }
}

void thread_main(void* arg) {
    auto& t = *static_cast<thread_ctx*>(arg);
    try {
        g_block.body.call(g_block.body.object);
    } catch (const kernel_error& e) {
        if (g_block.error.empty()) g_block.error = e.what();
    } catch (const std::exception& e) {
        if (g_block.error.empty()) g_block.error = diag::threw(where(t), e.what());
    } catch (...) {
        if (g_block.error.empty()) g_block.error = diag::threw(where(t), nullptr);
    }
    on_exit(t);
    yield(t);
    std::abort();  // a finished fiber is never resumed
}

std::string deadlock_report() {
    const auto& b = g_block;
    std::vector<std::pair<std::size_t, warp_wait>> waiting;
    for (std::size_t w = 0; w < b.warps.size(); ++w)
        for (const auto& op : b.warps[w].ops)
            if (op.active) waiting.emplace_back(w, op.wait);
    return diag::deadlock(b.kernel, g_block_idx, b.barrier, waiting, b.finished);
}

void run_block() {
    auto& b = g_block;
    b.finished = 0;
    b.barrier.count = 0;
    b.ready.clear();
    b.ready_head = 0;
    for (auto& w : b.warps) {
        w.exited = 0;
        for (auto& op : w.ops) op.active = false;
    }
    for (unsigned i = 0; i < b.nthreads; ++i) {
        thread_ctx& t = b.threads[i];
        t.st = thread_state::ready;
        fiber::prepare(t.ctx, i, &thread_main, &t);
        b.ready.push_back(i);
    }
    trace::block_begin();
    while (b.ready_head < b.ready.size() && b.error.empty()) {
        thread_ctx& t = b.threads[b.ready[b.ready_head++]];
        g_current = &t;
        prefetch_after(b);
        fiber::switch_to(b.scheduler, t.ctx);
    }
    g_current = nullptr;
    trace::block_end();
}

void validate(const char* name, dim3 grid, dim3 block) {
    const unsigned long long threads = 1ull * block.x * block.y * block.z;
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0 || threads > 1024 || block.z > 64 ||
        grid.y > 65535 || grid.z > 65535 || grid.x > 2147483647u) {
        throw kernel_error(diag::invalid_launch(name, grid, block));
    }
}

bool same_site(call_site a, call_site b) {
    return a.line == b.line && (a.file == b.file || std::strcmp(a.file, b.file) == 0);
}

}  // namespace

int block_barrier(barrier_kind kind, int predicate, const char* file, int line) {
    auto& b = g_block;
    thread_ctx& t = current_thread();
    const call_site at{file, line, reinterpret_cast<std::uintptr_t>(__builtin_return_address(0))};
    if (b.finished > 0) throw kernel_error(diag::barrier_after_return(where(t), kind, at, b.finished));
    if (b.barrier.count == 0) {
        b.barrier = barrier_wait{kind, at, 0};
        b.barrier_accum = kind == barrier_kind::all ? 1 : 0;
    } else if (b.barrier.kind != kind || !same_site(b.barrier.at, at)) {
        throw kernel_error(diag::divergent_barrier(where(t), kind, at, b.barrier));
    }
    switch (kind) {
    case barrier_kind::count: b.barrier_accum += predicate; break;
    case barrier_kind::all: b.barrier_accum = b.barrier_accum && predicate; break;
    case barrier_kind::any: b.barrier_accum = b.barrier_accum || predicate; break;
    case barrier_kind::sync: break;
    }
    t.st = thread_state::at_barrier;
    if (++b.barrier.count == b.nthreads) {
        // Every thread is here, so none is queued: the queue starts over, in thread order.
        b.ready.clear();
        b.ready_head = 0;
        const auto result = static_cast<std::uint64_t>(b.barrier_accum);
        for (unsigned i = 0; i < b.nthreads; ++i) {
            thread_ctx& other = b.threads[i];
            if (other.st == thread_state::at_barrier) {
                other.result = result;
                other.st = thread_state::ready;
                b.ready.push_back(i);
            }
        }
        b.barrier.count = 0;
        trace::barrier_done();
    }
    yield(t);
    return static_cast<int>(t.result);
}

namespace {

// __shared__ arrays (emu_shared, and a template instance's in emu_local) start every block
// zeroed, as the first block finds them, whichever block ran before in this process: a
// kernel that reads one before writing it gets the same values on any number of cores (and
// the initcheck hazard, in every traced case).
void poison_shared() {
    if (__start_emu_shared != nullptr) std::memset(__start_emu_shared, 0, static_cast<std::size_t>(__stop_emu_shared - __start_emu_shared));
    if (__start_emu_local != nullptr) std::memset(__start_emu_local, 0, static_cast<std::size_t>(__stop_emu_local - __start_emu_local));
}

// Blocks [first, last) in launch order (x fastest), until one fails. A fault or the
// watchdog jumps back here.
launch_outcome run_range(std::uint64_t first, std::uint64_t last) {
    auto& b = g_block;
    if (sigsetjmp(fault::jump_buffer(), 1) != 0) {
        fault::disarm();
        launch_outcome out{fault::last().signal == SIGALRM ? launch_outcome::timeout : launch_outcome::error,
                           diag::fault(b.kernel, g_block_idx, g_current != nullptr ? &g_current->idx : nullptr)};
        g_current = nullptr;
        return out;
    }
    fault::arm();
    const std::uint64_t gx = g_grid_dim.x, gxy = gx * g_grid_dim.y;
    for (std::uint64_t i = first; i < last; ++i) {
        g_block_idx = {static_cast<unsigned>(i % gx), static_cast<unsigned>(i / gx % g_grid_dim.y),
                       static_cast<unsigned>(i / gxy)};
        poison_shared();
        run_block();
        if (!b.error.empty()) {
            fault::disarm();
            return {launch_outcome::error, b.error};
        }
        if (b.finished != b.nthreads) {
            fault::disarm();
            return {launch_outcome::error, deadlock_report()};
        }
    }
    fault::disarm();
    return {};
}

}  // namespace

void run_grid(const char* name, dim3 grid, dim3 block, kernel_body body) {
    validate(name, grid, block);
    g_stats_now = &g_stats[name];
    ++g_stats_now->launches;
    check::launch_begin();
    trace::launch_begin(g_stats_now, name);
    auto& b = g_block;
    b.kernel = name;
    b.body = body;
    b.nthreads = block.x * block.y * block.z;
    b.error.clear();
    if (b.threads.size() < b.nthreads) b.threads.resize(b.nthreads);
    for (unsigned i = 0; i < b.nthreads; ++i) {
        b.threads[i].linear = i;
        b.threads[i].idx = {i % block.x, (i / block.x) % block.y, i / (block.x * block.y)};
    }
    b.warps.assign((b.nthreads + 31) / 32, warp_ctx{});
    for (unsigned w = 0; w < b.warps.size(); ++w) {
        const unsigned n = std::min(32u, b.nthreads - w * 32);
        b.warps[w].exists = n == 32 ? 0xffffffffu : (1u << n) - 1u;
    }
    b.ready.reserve(static_cast<std::size_t>(b.nthreads) * 8);
    g_block_dim = block;
    g_grid_dim = grid;

    const std::uint64_t blocks = std::uint64_t{grid.x} * grid.y * grid.z;
    launch_outcome out;
    if (!run_in_pool(blocks, b.nthreads, &run_range, out)) out = run_range(0, blocks);
    trace::launch_end();
    if (out.kind == launch_outcome::timeout) throw kernel_timeout(out.message);
    if (out.kind == launch_outcome::error) throw kernel_error(out.message);
    memory::check_slack(name);
}

void set_stack_ceiling(std::uintptr_t sp) { check::set_stack_ceiling(sp); }

}  // namespace emu::detail

namespace emu {

std::map<std::string, kernel_stats> launch_stats() { return detail::g_stats; }

void reset_launch_stats() {
    detail::g_stats.clear();
    detail::g_stats_now = nullptr;
    trace::forget_hazards();
}

}  // namespace emu
