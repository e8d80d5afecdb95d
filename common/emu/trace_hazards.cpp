// Shared-memory hazards of traced launches, as CUDA's racecheck and initcheck find them.
//
// Every 4-byte word of shared memory has a shadow: which bytes a thread of the running
// block wrote (all unwritten at the block's start: the poison), the last write and up to
// two reads since. Two accesses by different threads, at least one a write, race unless
// something orders them: a __syncthreads completed between them (each barrier starts a
// new "phase"), or, for lanes of one warp, a warp operation that both took part in after
// the first access (each completed warp operation gets a fresh generation number; a lane
// remembers the last one it took part in). Atomics never race with each other.
// A read of a byte no thread of the block wrote is an "uninitialized" hazard.
#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "emu/block_state.hpp"
#include "emu/trace.hpp"

namespace emu::trace::hazards {
namespace {

constexpr std::size_t max_kept = 5;  // hazards kept with their message, per kernel name

struct access_rec {
    std::uintptr_t pc = 0;      // 0: none
    std::uint32_t phase = 0;    // barrier interval it happened in
    std::uint32_t wsync = 0;    // the thread's lane generation then
    std::uint16_t thread = 0;   // linear id in the block
    bool atomic = false;
};

struct word_shadow {
    std::uint32_t block = 0;   // the block generation `written` belongs to
    std::uint8_t written = 0;  // a bit per byte
    access_rec write, read1, read2;
};

struct warp_sync {
    std::uint32_t full = 0;          // generation of the last warp operation of all live lanes
    std::uint32_t lane[32] = {};     // each lane's last generation
    std::uint32_t pair[32][32] = {};  // [a][b]: last partial operation both took part in
};

kernel_stats* g_stats = nullptr;
const char* g_kernel = "";
std::uintptr_t g_lo = 0;
std::vector<word_shadow> g_shadow;
std::vector<warp_sync> g_warps;
std::uint32_t g_block = 0, g_phase = 0, g_generation = 0;
// Pairs of instructions already reported, per kernel name: each is reported once.
using seen_pairs = std::set<std::tuple<int, std::uintptr_t, std::uintptr_t>>;
std::unordered_map<std::string, seen_pairs> g_seen;
seen_pairs* g_seen_now = nullptr;  // the running kernel's entry, looked up once per launch
seen_pairs& seen() {
    if (g_seen_now == nullptr) g_seen_now = &g_seen[g_kernel];
    return *g_seen_now;
}

bool ordered(const access_rec& r, unsigned thread) {
    if (r.pc == 0 || r.phase != g_phase || r.thread == thread) return true;
    if (r.thread / 32 != thread / 32) return false;
    const warp_sync& w = g_warps[thread / 32];
    return w.full > r.wsync || w.pair[thread % 32][r.thread % 32] > r.wsync;
}

// Every hazard this process found first, while a block pool's process runs (journal).
bool g_journaling = false;
std::vector<found> g_journal;

// `message()` is called only for a pair not reported yet: a kernel may repeat one hazard in
// every thread of every block, and naming its lines costs a symbol lookup each.
template <typename Message>
void report(int kind, std::uintptr_t first_pc, std::uintptr_t second_pc, const Message& message) {
    if (!seen().insert({kind, first_pc, second_pc}).second) return;
    std::string text = message();
    if (g_journaling) g_journal.push_back({kind, first_pc, second_pc, text});
    ++g_stats->hazard_count;
    if (g_stats->hazards.size() < max_kept)
        g_stats->hazards.push_back({kind == 0 ? "race" : "uninitialized", std::move(text)});
}

const uint3& idx_of(unsigned thread) { return detail::g_block.threads[thread].idx; }

void race(const access_rec& first, bool first_write, unsigned thread, bool write, std::uintptr_t pc) {
    report(0, first.pc, pc, [&] {
        return detail::diag::shared_race(g_kernel, detail::g_block_idx, idx_of(first.thread), first_write, first.pc,
                                         idx_of(thread), write, pc, first.thread / 32 == thread / 32);
    });
}

void check_word(word_shadow& s, std::uint8_t bytes, bool write, std::uintptr_t pc, unsigned thread, bool atomic) {
    const unsigned warp = thread / 32;
    const access_rec now{pc, g_phase, g_warps[warp].lane[thread % 32], static_cast<std::uint16_t>(thread), atomic};
    if (!write && !atomic && (s.block != g_block || (s.written & bytes) != bytes)) {
        report(1, pc, 0, [&] { return detail::diag::uninitialized_shared(g_kernel, detail::g_block_idx, idx_of(thread), pc); });
    }
    if (s.block != g_block) {
        s = word_shadow{};
        s.block = g_block;
    }
    if (!(atomic && s.write.atomic) && !ordered(s.write, thread)) race(s.write, true, thread, write, pc);
    if (write) {
        for (const access_rec* r : {&s.read1, &s.read2})
            if (!(atomic && r->atomic) && !ordered(*r, thread)) race(*r, false, thread, true, pc);
        s.written |= bytes;
        s.write = now;
        s.read1 = s.read2 = access_rec{};
    } else if (s.read1.pc == 0 || s.read1.phase != g_phase) {
        s.read1 = now;
    } else if (s.read1.thread != thread) {
        s.read2 = now;  // a second reader, so that a write by the first still finds one
    }
}

void visit(std::uintptr_t address, std::size_t size, bool write, std::uintptr_t pc, unsigned thread, bool atomic) {
    for (std::uintptr_t a = address; a < address + size;) {
        const std::size_t word = (a - g_lo) / 4;
        if (word >= g_shadow.size()) return;
        const unsigned first = static_cast<unsigned>(a % 4);
        const std::uintptr_t end = std::min<std::uintptr_t>(address + size, (a / 4 + 1) * 4);
        const auto bytes = static_cast<std::uint8_t>(((1u << (end - a)) - 1u) << first);
        check_word(g_shadow[word], bytes, write, pc, thread, atomic);
        a = end;
    }
}

}  // namespace

void launch_begin(kernel_stats* stats, const char* kernel, std::uintptr_t lo, std::uintptr_t hi) {
    g_stats = stats;
    g_kernel = kernel;
    g_seen_now = nullptr;
    g_lo = lo / 4 * 4;
    const std::size_t words = (hi - g_lo + 3) / 4;
    if (g_shadow.size() != words) g_shadow.assign(words, word_shadow{});
}

void block_begin(unsigned warps) {
    ++g_block;  // poisons every word: `written` belongs to an older block
    ++g_phase;
    if (g_warps.size() < warps) g_warps.resize(warps);
    // Generations only grow, so a fresh one orders nothing from an earlier block.
    ++g_generation;
    for (unsigned w = 0; w < warps; ++w) {
        g_warps[w].full = 0;
        for (auto& l : g_warps[w].lane) l = g_generation;
    }
}

void barrier_done() { ++g_phase; }

void warp_op_done(unsigned warp, unsigned mask, unsigned live) {
    warp_sync& w = g_warps[warp];
    const std::uint32_t gen = ++g_generation;
    for (unsigned l = 0; l < 32; ++l)
        if (mask >> l & 1u) w.lane[l] = gen;
    if ((mask & live) == live) {
        w.full = gen;
        return;
    }
    for (unsigned a = 0; a < 32; ++a) {
        if (!(mask >> a & 1u)) continue;
        for (unsigned b = 0; b < 32; ++b)
            if (mask >> b & 1u) w.pair[a][b] = gen;
    }
}

void shared_access(std::uintptr_t address, std::size_t size, bool write, std::uintptr_t pc, unsigned thread) {
    visit(address, size, write, pc, thread, false);
}

void atomic_access(std::uintptr_t address, std::size_t size, std::uintptr_t pc) {
    // An atomic reads and writes; atomics never race with each other.
    visit(address, size, true, pc, detail::g_current->linear, true);
}

void forget() {
    g_seen.clear();
    g_seen_now = nullptr;
}

void journal(bool on) {
    g_journaling = on;
    g_journal.clear();
}

std::vector<found> take_journal() { return std::move(g_journal); }

void merge(const found& f) {
    if (g_stats != nullptr) report(f.kind, f.first_pc, f.second_pc, [&] { return f.message; });
}

}  // namespace emu::trace::hazards
