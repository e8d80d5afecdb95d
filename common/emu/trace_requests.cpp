// Warp-level memory requests of traced launches. The lanes of a warp run one after another
// in the emulator, so a request (one load or store instruction of a warp) is assembled from
// the lanes' accesses: the n-th time lane L executes instruction `pc` joins the n-th time
// its warp-mates executed it, until the warp synchronises (a barrier, a warp operation of
// all its lanes, the end of the block), where the counts restart. Each request then costs
// wavefronts (shared: course/bank_wavefronts.hpp, the bank calculator's rules) or 32-byte
// sectors (global: distinct segments its lanes touch).
// Which memory an address is: trace_spaces.hpp.
#include <algorithm>
#include <unordered_map>
#include <utility>
#include <vector>

#include "course/bank_wavefronts.hpp"
#include "emu/access_check.hpp"
#include "emu/block_state.hpp"
#include "emu/diagnostics.hpp"
#include "emu/instruction_merge.hpp"
#include "emu/request_cost.hpp"
#include "emu/trace_spaces.hpp"
#include "emu/trace.hpp"

namespace emu::trace {

bool g_active = false;

namespace {

bool g_enabled = false;
bool g_counting = true;  // off: traced launches look for hazards only
kernel_stats* g_stats = nullptr;

struct request {
    std::uintptr_t pc = 0;  // the instruction; a range access's pieces get distinct high bits
    std::uint32_t k = 0;    // its dynamic instance since the warp last synchronised
    std::uint32_t lanes = 0;
    std::uint16_t size = 0;
    bool write = false;
    bool shared = false;
    bool atomic = false;
    std::uintptr_t address[32] = {};
};

struct key {
    std::uintptr_t pc;
    std::uint32_t k;
    bool operator==(const key& o) const { return pc == o.pc && k == o.k; }
};
struct key_hash {
    std::size_t operator()(const key& x) const { return std::hash<std::uintptr_t>()(x.pc * 31 + x.k); }
};

struct lane_count {
    std::uintptr_t pc;
    std::uint32_t n;
};

struct warp_trace {
    std::uint32_t epoch = 0;          // warp synchronisations since the block's last barrier
    std::uint32_t shared_epochs = 0;  // epochs of this block in which it touched shared memory
    std::vector<request> requests;
    std::unordered_map<key, std::uint32_t, key_hash> index;
    std::vector<lane_count> counts[32];  // per lane: how often it executed each pc so far
    std::uint32_t cursor[32] = {};       // per lane: the request after its last (the usual next)
};
std::vector<warp_trace> g_warps;

// Per instruction of the running launch (by pc), named at its end; and the instances of
// each instruction in the block since its last barrier, for the divergence count.
std::unordered_map<std::uintptr_t, instruction_counters> g_instructions;
struct instance_key {
    std::uintptr_t pc;
    std::uint32_t k, epoch;
    bool operator==(const instance_key& o) const { return pc == o.pc && k == o.k && epoch == o.epoch; }
};
struct instance_hash {
    std::size_t operator()(const instance_key& x) const {
        return std::hash<std::uintptr_t>()(x.pc * 131 + x.k * 7 + x.epoch);
    }
};
struct instance_tally {
    std::uint32_t lanes = 0, warps = 0;
};
std::unordered_map<instance_key, instance_tally, instance_hash> g_instances;
// The running block's barriers so far, and whether it is the grid's block (0,0,0).
std::uint32_t g_step = 0;
bool g_first_block = false;

// The warp synchronised: every request it assembled is complete.
void flush(unsigned warp) {
    warp_trace& w = g_warps[warp];
    if (w.requests.empty()) {
        ++w.epoch;
        return;
    }
    memory_counters& m = g_stats->memory;
    const int threads = __builtin_popcount(detail::g_block.warps[warp].exists);
    bool touched_shared = false;
    for (const request& r : w.requests) {
        const int lanes = __builtin_popcount(r.lanes);
        m.request_lanes += static_cast<unsigned>(lanes);
        if (lanes < threads) ++m.partial_requests;
        const std::uintptr_t pc = r.pc & ((std::uintptr_t{1} << 48) - 1);
        instruction_counters& ins = g_instructions[pc];
        ins.shared = r.shared;
        ins.op = r.atomic ? 2 : r.write ? 1 : 0;
        ins.width = static_cast<std::uint8_t>(std::max<unsigned>(ins.width, r.size));
        ++ins.requests;
        ins.lanes += static_cast<unsigned>(lanes);
        if (g_first_block) note_step(ins, g_step, warp, r.lanes);
        instance_tally& t = g_instances[instance_key{r.pc, r.k, w.epoch}];
        t.lanes += static_cast<unsigned>(lanes);
        ++t.warps;
        if (r.shared) {
            touched_shared = true;
            std::uint32_t address[32];
            for (unsigned l = 0; l < 32; ++l) address[l] = static_cast<std::uint32_t>(r.address[l]);
            // Sub-word accesses are served by their word, like 4-byte ones.
            const unsigned width = r.size >= 16 ? 16 : r.size >= 8 ? 8 : 4;
            const unsigned wavefronts =
                r.atomic ? atomic_wavefronts(r.address, r.lanes) : course::bank_wavefronts(address, r.lanes, width);
            const unsigned ideal = r.atomic ? 1 : ideal_wavefronts(r.lanes, width);
            ins.cost += wavefronts;
            note_sample(ins, wavefronts, r.lanes, r.address);
            ins.ideal += ideal;
            m.shared_ideal_wavefronts += ideal;
            if (r.atomic) {
                ++m.shared_atomic_requests;
                m.shared_atomic_wavefronts += wavefronts;
            } else {
                (r.write ? m.shared_store_requests : m.shared_load_requests) += 1;
                (r.write ? m.shared_store_wavefronts : m.shared_load_wavefronts) += wavefronts;
            }
        } else {
            const unsigned sectors = distinct_sectors(r.address, r.lanes, r.size);
            ins.cost += sectors;
            note_sample(ins, sectors, r.lanes, r.address);
            if (r.atomic) {
                ++m.global_atomic_requests;
            } else {
                (r.write ? m.global_store_requests : m.global_load_requests) += 1;
                (r.write ? m.global_store_sectors : m.global_load_sectors) += sectors;
            }
        }
    }
    if (touched_shared) ++w.shared_epochs;
    ++w.epoch;
    w.requests.clear();
    w.index.clear();
    for (unsigned l = 0; l < 32; ++l) {
        w.counts[l].clear();
        w.cursor[l] = 0;
    }
}

// A barrier or the block's end: each instance of an instruction since the last barrier
// is complete across the block's warps.
void settle_instances() {
    for (const auto& [key, t] : g_instances) {
        const std::uint32_t needed = (t.lanes + 31) / 32;
        if (t.warps <= needed) continue;
        g_stats->memory.excess_warp_requests += t.warps - needed;
        g_instructions[key.pc & ((std::uintptr_t{1} << 48) - 1)].excess_warps += t.warps - needed;
    }
    g_instances.clear();
    for (auto& w : g_warps) w.epoch = 0;
}

void flush_all() {
    for (unsigned w = 0; w < g_warps.size(); ++w) flush(w);
}

// A warp that never synchronises (a loop that spins until the watchdog stops it) would
// assemble requests without end: past these many, its requests are counted as if it had.
constexpr std::size_t max_open_requests = std::size_t{1} << 16;
constexpr std::size_t max_open_instances = std::size_t{1} << 20;

void record(unsigned linear, std::uintptr_t pc, std::uintptr_t address, std::size_t size, bool write, bool shared,
            bool atomic = false) {
    const unsigned lane = linear % 32;
    warp_trace& w = g_warps[linear / 32];
    if (w.requests.size() >= max_open_requests) {
        flush(linear / 32);
        if (g_instances.size() >= max_open_instances) settle_instances();
    }
    std::uint32_t k = 0;
    bool seen = false;
    for (auto& c : w.counts[lane]) {
        if (c.pc == pc) {
            k = c.n++;
            seen = true;
            break;
        }
    }
    if (!seen) w.counts[lane].push_back({pc, 1});
    std::uint32_t i = w.cursor[lane];
    if (i >= w.requests.size() || w.requests[i].pc != pc || w.requests[i].k != k) {
        const auto it = w.index.find(key{pc, k});
        if (it != w.index.end()) {
            i = it->second;
        } else {
            i = static_cast<std::uint32_t>(w.requests.size());
            request r;
            r.pc = pc;
            r.k = k;
            r.size = static_cast<std::uint16_t>(size);
            r.write = write;
            r.shared = shared;
            r.atomic = atomic;
            w.requests.push_back(r);
            w.index.emplace(key{pc, k}, i);
        }
    }
    w.cursor[lane] = i + 1;
    w.requests[i].address[lane] = address;
    w.requests[i].lanes |= 1u << lane;
}

}  // namespace

void launch_begin(kernel_stats* stats, const char* kernel) {
    g_active = false;
    g_instructions.clear();
    g_stats = nullptr;
    if (!g_enabled) return;
    find_static_storage();
    find_device_ranges();
    g_stats = stats;
    stats->traced = true;
    hazards::launch_begin(stats, kernel, g_static.lo, g_static.hi);
}

void launch_end() {
    g_active = false;
    if (g_stats == nullptr) return;
    for (const auto& [pc, c] : g_instructions) accumulate(g_stats->instructions[detail::diag::code_place(pc)], c);
    g_instructions.clear();
}

void block_begin() {
    if (!g_enabled || g_stats == nullptr) return;
    const std::size_t warps = detail::g_block.warps.size();
    if (g_warps.size() < warps) g_warps.resize(warps);
    g_stats->memory.warps += warps;
    g_instances.clear();
    for (std::size_t w = 0; w < warps; ++w) {
        g_warps[w].epoch = 0;
        g_warps[w].shared_epochs = 0;
        g_warps[w].requests.clear();
        g_warps[w].index.clear();
        for (unsigned l = 0; l < 32; ++l) {
            g_warps[w].counts[l].clear();
            g_warps[w].cursor[l] = 0;
        }
    }
    g_step = 0;
    g_first_block = detail::g_block_idx.x == 0 && detail::g_block_idx.y == 0 && detail::g_block_idx.z == 0;
    hazards::block_begin(static_cast<unsigned>(warps));
    g_active = true;
}

void barrier_done() {
    if (!g_active) return;
    flush_all();
    settle_instances();
    ++g_step;
    ++g_stats->memory.barriers;
    hazards::barrier_done();
}

void warp_op_done(unsigned warp, unsigned mask) {
    if (!g_active) return;
    const auto& w = detail::g_block.warps[warp];
    const unsigned live = w.exists & ~w.exited;
    // A warp operation of only some lanes leaves the others where they were: their
    // requests go on assembling.
    if ((mask & live) == live) flush(warp);
    hazards::warp_op_done(warp, mask, live);
}

void block_end() {
    if (!g_active) return;
    flush_all();
    settle_instances();
    for (std::size_t w = 0; w < detail::g_block.warps.size(); ++w)
        g_stats->memory.shared_epochs = std::max<std::uint64_t>(g_stats->memory.shared_epochs, g_warps[w].shared_epochs);
    g_active = false;
}

void forget_hazards() { hazards::forget(); }

std::vector<std::pair<std::uintptr_t, instruction_counters>> launch_instructions() {
    return {g_instructions.begin(), g_instructions.end()};
}

void add_instructions(std::uintptr_t pc, const instruction_counters& c) { accumulate(g_instructions[pc], c); }

void access(std::uintptr_t address, std::size_t size, bool write, std::uintptr_t pc) {
    const detail::thread_ids* t = detail::g_current;
    if (t == nullptr || size == 0) return;
    const space s = classify(address);
    if (s == space::none) return;
    if (s == space::shared) hazards::shared_access(address, size, write, pc, t->linear);
    if (!g_counting) return;
    if (size == 1 || size == 2 || size == 4 || size == 8 || size == 16) {
        record(t->linear, pc, address, size, write, s == space::shared);
        return;
    }
    // A copy of a struct (__tsan_read_range): a GPU moves it in 4-byte pieces.
    for (std::size_t piece = 0; piece * 4 < size; ++piece) {
        const std::size_t n = std::min<std::size_t>(4, size - piece * 4);
        record(t->linear, pc | (static_cast<std::uintptr_t>(piece + 1) << 48), address + piece * 4, n, write,
               s == space::shared);
    }
}

}  // namespace emu::trace

namespace emu {

void set_tracing(bool on) { trace::g_enabled = on; }
void set_counting(bool on) { trace::g_counting = on; }
bool tracing() { return trace::g_enabled; }

namespace detail {
void trace_atomic(const volatile void* p, unsigned size) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    check::atomic(a, size, COURSE_EMU_ORIGIN());
    if (!trace::g_active || detail::g_current == nullptr) return;
    const auto pc = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
    const trace::space s = trace::classify(a);
    if (s == trace::space::none) return;
    if (s == trace::space::shared) trace::hazards::atomic_access(a, size, pc);
    if (trace::g_counting) trace::record(detail::g_current->linear, pc, a, size, true, s == trace::space::shared, true);
}
}  // namespace detail

}  // namespace emu
