// Runs emulated blocks: one fiber per thread, real barriers, warp operations that
// exchange values among the lanes their mask names, and diagnoses for everything a GPU
// would hang on or leave undefined.
#include <dlfcn.h>
#include <link.h>

#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "emu/cuda_emu.hpp"
#include "emu/device_memory.hpp"
#include "emu/emu_stats.hpp"
#include "emu/fault_guard.hpp"
#include "emu/fiber.hpp"

namespace emu::detail {

thread_ids* g_current = nullptr;
uint3 g_block_idx{};
dim3 g_block_dim;
dim3 g_grid_dim;

namespace {

enum class state : std::uint8_t { ready, at_barrier, at_warp_op, done };

struct thread_ctx : thread_ids {
    fiber::context ctx;
    state st = state::ready;
    const char* file = nullptr;  // where it waits
    int line = 0;
    warp_op_kind op = warp_op_kind::sync;
    std::uint64_t value = 0;   // what it brought to a warp operation or barrier
    std::uint64_t result = 0;  // what it gets back
    int arg = 0;
};

struct warp_op_slot {
    bool active = false;
    warp_op_kind kind = warp_op_kind::sync;
    unsigned mask = 0;
    unsigned arrived = 0;
    int width = 32;
    const char* file = nullptr;
    int line = 0;
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
    unsigned bar_count = 0;
    int bar_kind = 0;
    const char* bar_file = nullptr;
    int bar_line = 0;
    int bar_accum = 0;
    std::vector<unsigned> ready;
    std::size_t ready_head = 0;
    fiber::context scheduler;
    std::string error;
};
block_ctx g_block;

// Per launch name; `g_stats_now` points at the running launch's entry, so that a warp
// operation counts with one increment and no lookup.
std::map<std::string, kernel_stats> g_stats;
kernel_stats* g_stats_now = nullptr;

const char* const barrier_names[] = {"__syncthreads()", "__syncthreads_count()", "__syncthreads_and()",
                                     "__syncthreads_or()"};

const char* op_name(warp_op_kind k) {
    switch (k) {
    case warp_op_kind::sync: return "__syncwarp";
    case warp_op_kind::shfl_idx: return "__shfl_sync";
    case warp_op_kind::shfl_up: return "__shfl_up_sync";
    case warp_op_kind::shfl_down: return "__shfl_down_sync";
    case warp_op_kind::shfl_xor: return "__shfl_xor_sync";
    case warp_op_kind::ballot: return "__ballot_sync";
    case warp_op_kind::any: return "__any_sync";
    case warp_op_kind::all: return "__all_sync";
    }
    return "?";
}

bool is_shuffle(warp_op_kind k) {
    return k == warp_op_kind::shfl_idx || k == warp_op_kind::shfl_up || k == warp_op_kind::shfl_down ||
           k == warp_op_kind::shfl_xor;
}

std::string triple(const uint3& v) {
    return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

std::string site(const char* file, int line) {
    std::string f = file ? file : "?";
    const auto slash = f.find_last_of('/');
    if (slash != std::string::npos) f = f.substr(slash + 1);
    return f + ":" + std::to_string(line);
}

std::string hex(unsigned mask) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", mask);
    return buf;
}

// "0-15, 17"
std::string lanes(unsigned mask) {
    std::string out;
    for (int l = 0; l < 32;) {
        if (!(mask >> l & 1u)) {
            ++l;
            continue;
        }
        int e = l;
        while (e + 1 < 32 && (mask >> (e + 1) & 1u)) ++e;
        out += (out.empty() ? "" : ", ") + std::to_string(l) + (e > l ? "-" + std::to_string(e) : "");
        l = e + 1;
    }
    return out.empty() ? "none" : out;
}

std::string where(const thread_ctx& t) {
    return "kernel '" + std::string(g_block.kernel) + "', block " + triple(g_block_idx) + ", thread " +
           triple(t.idx) + ": ";
}

thread_ctx& me() { return *static_cast<thread_ctx*>(g_current); }

// Blocks the running thread and resumes the next ready one directly (or the scheduler
// when none is ready), which halves the switches of a round trip through the scheduler.
void yield(thread_ctx& t) {
    auto& b = g_block;
    if (b.ready_head < b.ready.size() && b.error.empty()) {
        thread_ctx& next = b.threads[b.ready[b.ready_head++]];
        if (&next == &t) return;
        g_current = &next;
        fiber::switch_to(t.ctx, next.ctx);
        return;
    }
    fiber::switch_to(t.ctx, b.scheduler);
}

void make_ready(unsigned i) {
    g_block.threads[i].st = state::ready;
    g_block.ready.push_back(i);
}

void on_exit(thread_ctx& t) {
    auto& b = g_block;
    t.st = state::done;
    ++b.finished;
    warp_ctx& w = b.warps[t.linear / 32];
    const unsigned bit = 1u << (t.linear % 32);
    w.exited |= bit;
    if (!b.error.empty()) return;
    if (b.bar_count > 0) {
        b.error = where(t) + "returned while " + std::to_string(b.bar_count) + " thread(s) of its block wait at " +
                  barrier_names[b.bar_kind] + " (" + site(b.bar_file, b.bar_line) +
                  "). Every thread of a block must reach each __syncthreads(); one inside a branch that not "
                  "all threads take is undefined behaviour and can hang a GPU.";
        return;
    }
    for (const auto& op : w.ops) {
        if (op.active && (op.mask & bit) && !(op.arrived & bit)) {
            b.error = where(t) + "returned, but lanes " + lanes(op.arrived) + " of its warp wait for it at " +
                      op_name(op.kind) + "(mask " + hex(op.mask) + ") (" + site(op.file, op.line) +
                      "): a mask may only name lanes that reach the call.";
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
        if (g_block.error.empty()) g_block.error = where(t) + "threw " + e.what();
    } catch (...) {
        if (g_block.error.empty()) g_block.error = where(t) + "threw an exception";
    }
    on_exit(t);
    yield(t);
    std::abort();  // a finished fiber is never resumed
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
void complete(warp_op_slot& op, unsigned warp) {
    auto& b = g_block;
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
            const unsigned src = source_lane(op.kind, l, t.arg, op.width);
            if (!(op.mask >> src & 1u)) {
                throw kernel_error(where(t) + op_name(op.kind) + " (" + site(op.file, op.line) + ") reads lane " +
                                   std::to_string(src) + ", which is not in the mask " + hex(op.mask) +
                                   ": the value is undefined on a GPU.");
            }
            t.result = b.threads[base + src].value;
        }
        }
    }
    op.active = false;
    for (unsigned l = 0; l < 32; ++l)
        if (op.mask >> l & 1u) make_ready(base + l);
}

std::string deadlock_report() {
    auto& b = g_block;
    std::string msg = "kernel '" + std::string(b.kernel) + "', block " + triple(g_block_idx) +
                      ": deadlock, no thread can go on (on a GPU this launch hangs or gives undefined results).";
    if (b.bar_count > 0)
        msg += "\n  " + std::to_string(b.bar_count) + " thread(s) wait at " + barrier_names[b.bar_kind] + " (" +
               site(b.bar_file, b.bar_line) + ")";
    for (std::size_t w = 0; w < b.warps.size(); ++w) {
        for (const auto& op : b.warps[w].ops) {
            if (!op.active) continue;
            msg += "\n  warp " + std::to_string(w) + ": lanes " + lanes(op.arrived) + " wait at " + op_name(op.kind) +
                   "(mask " + hex(op.mask) + ") (" + site(op.file, op.line) + "), which also needs lanes " +
                   lanes(op.mask & ~op.arrived);
        }
    }
    if (b.finished > 0) msg += "\n  " + std::to_string(b.finished) + " thread(s) have returned";
    return msg;
}

void run_block() {
    auto& b = g_block;
    b.finished = 0;
    b.bar_count = 0;
    b.ready.clear();
    b.ready_head = 0;
    for (auto& w : b.warps) {
        w.exited = 0;
        for (auto& op : w.ops) op.active = false;
    }
    for (unsigned i = 0; i < b.nthreads; ++i) {
        thread_ctx& t = b.threads[i];
        t.st = state::ready;
        fiber::prepare(t.ctx, i, &thread_main, &t);
        b.ready.push_back(i);
    }
    while (b.ready_head < b.ready.size() && b.error.empty()) {
        thread_ctx& t = b.threads[b.ready[b.ready_head++]];
        g_current = &t;
        fiber::switch_to(b.scheduler, t.ctx);
    }
    g_current = nullptr;
}

// " [at exe+0x...]": where in the worker's executable the faulting instruction lies, for
// the grader to turn into a line of the lab file (the sandboxed worker cannot read its own
// binary's line tables; the grader can). "" when the instruction is not in the executable.
std::string code_place(std::uintptr_t pc) {
    Dl_info info{};
    if (pc == 0 || dladdr(reinterpret_cast<void*>(pc), &info) == 0 || info.dli_fbase == nullptr) return "";
    // The emulator is linked into the worker: its own address names the executable.
    Dl_info self{};
    if (dladdr(reinterpret_cast<void*>(&code_place), &self) == 0 || info.dli_fbase != self.dli_fbase) return "";
    // A position-independent executable's addresses are offsets from where it was loaded;
    // a fixed-address one's are absolute. The ELF header, mapped at the base, says which.
    const auto* header = static_cast<const ElfW(Ehdr)*>(info.dli_fbase);
    const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    const std::uintptr_t address = header->e_type == ET_DYN ? pc - base : pc;
    char buf[48];
    std::snprintf(buf, sizeof buf, " [at exe+0x%llx]", static_cast<unsigned long long>(address));
    return buf;
}

std::string fault_message() {
    const fault::record& f = fault::last();
    std::string who = "kernel '" + std::string(g_block.kernel) + "', block " + triple(g_block_idx);
    if (g_current != nullptr) who += ", thread " + triple(g_current->idx);
    if (f.signal == SIGALRM) {
        char secs[32];
        std::snprintf(secs, sizeof secs, "%g", fault::watchdog_seconds());
        return who + ": stopped by the watchdog after " + secs +
               " s on the CPU emulator. An endless loop, or a thread spinning until another thread changes a value?";
    }
    if (f.signal == SIGFPE) return who + ": arithmetic fault (an integer division by zero?)";
    const char* what = f.write == 1 ? "write" : f.write == 0 ? "read" : "access";
    std::string place = memory::describe_address(f.address);
    if (place.empty()) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(f.address));
        place = f.address < 65536 ? std::string("a null pointer (address ") + buf + ")"
                                  : std::string("address ") + buf + ", which is in no device buffer";
    }
    return who + ": out-of-bounds " + what + ": " + place + code_place(f.pc);
}

void validate(const char* name, dim3 grid, dim3 block) {
    const unsigned long long threads = 1ull * block.x * block.y * block.z;
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0 || threads > 1024 || block.z > 64 ||
        grid.y > 65535 || grid.z > 65535 || grid.x > 2147483647u) {
        throw kernel_error("invalid launch configuration for kernel '" + std::string(name) + "': grid " +
                           triple({grid.x, grid.y, grid.z}) + ", block " + triple({block.x, block.y, block.z}) +
                           " (at most 1024 threads per block, none of the sizes 0)");
    }
}

}  // namespace

std::uint64_t warp_op(warp_op_kind kind, unsigned mask, std::uint64_t value, int arg, int width, const char* file,
                      int line) {
    auto& b = g_block;
    thread_ctx& t = me();
    const unsigned lane = t.linear % 32;
    const unsigned bit = 1u << lane;
    warp_ctx& w = b.warps[t.linear / 32];
    const std::string call = std::string(op_name(kind)) + " (" + site(file, line) + ")";
    if (width <= 0 || width > 32 || (width & (width - 1)) != 0)
        throw kernel_error(where(t) + call + ": width " + std::to_string(width) + " is not a power of two up to 32");
    if (!(mask & bit))
        throw kernel_error(where(t) + call + " with mask " + hex(mask) + ", which does not name the calling lane " +
                           std::to_string(lane));
    if (mask & ~w.exists)
        throw kernel_error(where(t) + call + ": mask " + hex(mask) + " names lanes " + lanes(mask & ~w.exists) +
                           " that do not exist (the block has " + std::to_string(b.nthreads) + " threads)");
    if (mask & w.exited)
        throw kernel_error(where(t) + call + ": mask " + hex(mask) + " names lanes " + lanes(mask & w.exited) +
                           " that have already returned, so they can never arrive");
    warp_op_slot* op = nullptr;
    for (auto& o : w.ops)
        if (o.active && o.mask == mask) op = &o;
    if (op != nullptr) {
        if (op->kind != kind || op->width != width)
            throw kernel_error(where(t) + call + " with mask " + hex(mask) + ", while lanes " + lanes(op->arrived) +
                               " wait at " + op_name(op->kind) + " (" + site(op->file, op->line) +
                               ") with the same mask: all lanes of a mask must make the same call");
    } else {
        for (auto& o : w.ops) {
            if (o.active && (o.mask & mask))
                throw kernel_error(where(t) + call + " with mask " + hex(mask) + " overlaps lanes " +
                                   lanes(o.arrived) + " waiting at " + op_name(o.kind) + " (" + site(o.file, o.line) +
                                   ") with mask " + hex(o.mask));
        }
        for (auto& o : w.ops) {
            if (!o.active) {
                op = &o;
                break;
            }
        }
        if (op == nullptr) throw kernel_error(where(t) + call + ": too many warp operations in flight at once");
        *op = warp_op_slot{true, kind, mask, 0, width, file, line};
    }
    t.value = value;
    t.arg = arg;
    t.op = kind;
    t.file = file;
    t.line = line;
    t.st = state::at_warp_op;
    op->arrived |= bit;
    if (op->arrived == op->mask) complete(*op, t.linear / 32);
    yield(t);
    return t.result;
}

int block_barrier(int kind, int predicate, const char* file, int line) {
    auto& b = g_block;
    thread_ctx& t = me();
    if (b.finished > 0)
        throw kernel_error(where(t) + "reached " + barrier_names[kind] + " (" + site(file, line) + ") after " +
                           std::to_string(b.finished) +
                           " thread(s) of its block returned. Every thread of a block must reach each "
                           "__syncthreads(): do not return early from a kernel that synchronises later.");
    if (b.bar_count == 0) {
        b.bar_kind = kind;
        b.bar_file = file;
        b.bar_line = line;
        b.bar_accum = kind == 2 ? 1 : 0;
    } else if (b.bar_line != line || b.bar_kind != kind ||
               (b.bar_file != file && std::strcmp(b.bar_file, file) != 0)) {
        throw kernel_error(where(t) + "is at " + barrier_names[kind] + " (" + site(file, line) + "), while " +
                           std::to_string(b.bar_count) + " thread(s) of its block wait at " +
                           barrier_names[b.bar_kind] + " (" + site(b.bar_file, b.bar_line) +
                           "). Threads that take different branches must not synchronise inside them.");
    }
    switch (kind) {
    case 1: b.bar_accum += predicate; break;
    case 2: b.bar_accum = b.bar_accum && predicate; break;
    case 3: b.bar_accum = b.bar_accum || predicate; break;
    default: break;
    }
    t.st = state::at_barrier;
    t.file = file;
    t.line = line;
    if (++b.bar_count == b.nthreads) {
        for (unsigned i = 0; i < b.nthreads; ++i) {
            if (b.threads[i].st == state::at_barrier) {
                b.threads[i].result = static_cast<std::uint64_t>(b.bar_accum);
                make_ready(i);
            }
        }
        b.bar_count = 0;
    }
    yield(t);
    return static_cast<int>(t.result);
}

void run_grid(const char* name, dim3 grid, dim3 block, kernel_body body) {
    validate(name, grid, block);
    g_stats_now = &g_stats[name];
    ++g_stats_now->launches;
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

    if (sigsetjmp(fault::jump_buffer(), 1) != 0) {
        fault::disarm();
        const std::string msg = fault_message();
        g_current = nullptr;
        if (fault::last().signal == SIGALRM) throw kernel_timeout(msg);
        throw kernel_error(msg);
    }
    fault::arm();
    for (unsigned z = 0; z < grid.z; ++z) {
        for (unsigned y = 0; y < grid.y; ++y) {
            for (unsigned x = 0; x < grid.x; ++x) {
                g_block_idx = {x, y, z};
                run_block();
                if (!b.error.empty()) {
                    fault::disarm();
                    throw kernel_error(b.error);
                }
                if (b.finished != b.nthreads) {
                    fault::disarm();
                    throw kernel_error(deadlock_report());
                }
            }
        }
    }
    fault::disarm();
    memory::check_slack(name);
}

}  // namespace emu::detail

namespace emu {

std::map<std::string, kernel_stats> launch_stats() { return detail::g_stats; }

void reset_launch_stats() {
    detail::g_stats.clear();
    detail::g_stats_now = nullptr;
}

unsigned activemask() {
    const auto& t = *detail::g_current;
    const auto& w = detail::g_block.warps[t.linear / 32];
    return w.exists & ~w.exited;
}

}  // namespace emu
