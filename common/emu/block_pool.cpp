#include "emu/block_pool.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "emu/block_state.hpp"
#include "emu/emu_stats.hpp"
#include "emu/trace.hpp"

// The pages of the lab objects' per-grid data (lab_data.ld).
extern "C" {
extern char __start_emu_static_data[] __attribute__((weak));
extern char __emu_grid_data_end[] __attribute__((weak));
}

namespace emu::detail {
namespace {

constexpr std::size_t page_bytes = 4096;
constexpr unsigned max_processes = 64;
// A launch of fewer threads runs in one process: a fork and the child's first touches of
// its fibers' stacks cost about a millisecond, a block of 256 threads some 50 microseconds.
constexpr std::uint64_t min_pool_threads = std::uint64_t{1} << 15;
constexpr std::size_t report_bytes = std::size_t{4} << 20;  // what one child sends back, at most
constexpr std::uint64_t report_magic = 0x636f757273650001ull;

unsigned clamp_cores(long n) { return static_cast<unsigned>(std::clamp<long>(n, 1, max_processes)); }

// Read at start-up, before the executor's system-call filter would refuse sched_getaffinity.
unsigned detect_cores() {
    const char* env = std::getenv("COURSE_EMU_CORES");
    if (env != nullptr && *env != '\0') return clamp_cores(std::strtol(env, nullptr, 10));
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    return clamp_cores(CPU_COUNT(&set));
}
const unsigned g_detected = detect_cores();
unsigned g_cores = g_detected;

// The printf budget's count: this process's own until the first pool, then on a page that
// every child shares.
std::atomic<std::size_t> g_own_printed{0};
std::atomic<std::size_t>* g_printed = &g_own_printed;
bool share_printed() {
    if (g_printed != &g_own_printed) return true;
    void* p = mmap(nullptr, page_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
    g_printed = new (p) std::atomic<std::size_t>(g_own_printed.load());
    return true;
}

enum class sharing { unknown, shared, impossible };
sharing g_grid_data = sharing::unknown;

// Replaces the private pages of the per-grid data with a shared copy, once.
bool share_grid_data() {
    if (g_grid_data != sharing::unknown) return g_grid_data == sharing::shared;
    g_grid_data = sharing::impossible;
    const auto lo = reinterpret_cast<std::uintptr_t>(__start_emu_static_data);
    const auto hi = reinterpret_cast<std::uintptr_t>(__emu_grid_data_end);
    if (lo == 0 || hi < lo || lo % page_bytes != 0 || hi % page_bytes != 0 ||
        static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) != page_bytes)
        return false;
    const std::size_t len = hi - lo;
    if (len > 0) {
        void* copy = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (copy == MAP_FAILED) return false;
        std::memcpy(copy, __start_emu_static_data, len);
        if (mremap(copy, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, __start_emu_static_data) == MAP_FAILED) {
            munmap(copy, len);
            return false;
        }
    }
    g_grid_data = sharing::shared;
    return true;
}

// One report slot per child, mapped when the first launch needs them (pages are only
// allocated where a child writes).
char* g_reports = nullptr;
char* report_slot(unsigned child) {
    if (g_reports == nullptr) {
        void* p = mmap(nullptr, report_bytes * max_processes, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) return nullptr;
        g_reports = static_cast<char*>(p);
    }
    return g_reports + report_bytes * child;
}

struct writer {
    char* base;
    std::size_t used = 8;  // after the length
    bool full = false;
    void bytes(const void* p, std::size_t n) {
        if (full || used + n > report_bytes) {
            full = true;
            return;
        }
        std::memcpy(base + used, p, n);
        used += n;
    }
    void u64(std::uint64_t v) { bytes(&v, sizeof v); }
    void str(const std::string& s) {
        u64(s.size());
        bytes(s.data(), s.size());
    }
    void finish() {
        const std::uint64_t n = full ? 0 : used;
        std::memcpy(base, &n, sizeof n);
    }
};

struct reader {
    const char* at;
    const char* end;
    bool bad = false;
    std::uint64_t u64() {
        std::uint64_t v = 0;
        if (end - at < 8) {
            bad = true;
            return 0;
        }
        std::memcpy(&v, at, sizeof v);
        at += sizeof v;
        return v;
    }
    std::string str() {
        const std::uint64_t n = u64();
        if (bad || n > static_cast<std::uint64_t>(end - at)) {
            bad = true;
            return {};
        }
        std::string s(at, n);
        at += n;
        return s;
    }
};

// The memory counters as numbers: all are sums but one, the most epochs of one warp.
constexpr std::size_t counter_count = sizeof(memory_counters) / sizeof(std::uint64_t);
static_assert(sizeof(memory_counters) == counter_count * sizeof(std::uint64_t), "memory_counters holds only uint64s");
constexpr std::size_t epochs_index = offsetof(memory_counters, shared_epochs) / sizeof(std::uint64_t);
std::uint64_t* numbers(memory_counters& m) { return reinterpret_cast<std::uint64_t*>(&m); }

void report(unsigned child, std::uint64_t first, std::uint64_t last, block_runner run);

[[noreturn]] void child_main(unsigned child, std::uint64_t first, std::uint64_t last, pid_t parent, block_runner run) {
    // Ends with the process that forked it, even one that the harness killed.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    // Nothing may unwind out of here: the caller's frames belong to the process that forked.
    try {
        report(child, first, last, run);
    } catch (...) {
        _exit(1);
    }
    _exit(0);
}

void report(unsigned child, std::uint64_t first, std::uint64_t last, block_runner run) {
    kernel_stats& stats = *g_stats_now;
    memory_counters before = stats.memory;
    const std::uint64_t shuffles_before = stats.warp_shuffles;
    trace::hazards::journal(true);
    const launch_outcome outcome = run(first, last);

    writer w{report_slot(child)};
    w.u64(report_magic);
    w.u64(static_cast<std::uint64_t>(outcome.kind));
    w.str(outcome.message);
    w.u64(stats.warp_shuffles - shuffles_before);
    for (std::size_t i = 0; i < counter_count; ++i)
        w.u64(i == epochs_index ? numbers(stats.memory)[i] : numbers(stats.memory)[i] - numbers(before)[i]);
    const auto instructions = trace::launch_instructions();
    w.u64(instructions.size());
    for (const auto& [pc, c] : instructions) {
        for (std::uint64_t v : {static_cast<std::uint64_t>(pc), std::uint64_t{c.shared}, std::uint64_t{c.op},
                                std::uint64_t{c.width}, c.requests, c.cost, c.ideal, c.excess_warps, c.lanes,
                                c.sample.cost, std::uint64_t{c.sample.lanes}})
            w.u64(v);
        for (std::uint64_t a : c.sample.address) w.u64(a);
        // No lane steps: they are block (0,0,0)'s, which the first process runs.
    }
    const auto found = trace::hazards::take_journal();
    w.u64(found.size());
    for (const auto& f : found) {
        w.u64(static_cast<std::uint64_t>(f.kind));
        w.u64(f.first_pc);
        w.u64(f.second_pc);
        w.str(f.message);
    }
    w.finish();
}

std::string blocks_named(std::uint64_t first, std::uint64_t last) {
    return "blocks " + std::to_string(first) + " to " + std::to_string(last - 1) + " (in launch order)";
}

// Waits for a child; true when it ended and `status` says how.
bool reap(pid_t pid, int& status) {
    for (;;) {
        if (waitpid(pid, &status, 0) == pid) return true;
        if (errno != EINTR) return false;
    }
}

// Waits for a child and, when `merge`, adds what it sent to this launch's results (a launch
// that already failed in an earlier range reports nothing more, as one process would).
launch_outcome collect(unsigned child, pid_t pid, std::uint64_t first, std::uint64_t last, bool merge) {
    int status = 0;
    const bool ended = reap(pid, status);
    if (!merge) return {};
    const std::string who = std::string("'") + g_block.kernel + "': the process that ran " + blocks_named(first, last);
    if (ended && WIFSIGNALED(status)) {
        // The executor's harness names a refused system call by the signal it died of.
        if (WTERMSIG(status) == SIGSYS) {
            signal(SIGSYS, SIG_DFL);
            raise(SIGSYS);
        }
        return {launch_outcome::error, who + " was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                                           strsignal(WTERMSIG(status)) + ")"};
    }
    const char* slot = report_slot(child);
    std::uint64_t length = 0;
    std::memcpy(&length, slot, sizeof length);
    if (!ended || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || length < 8 || length > report_bytes)
        return {launch_outcome::error, who + (length == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0
                                                  ? " found more hazards than it could report"
                                                  : " ended without reporting")};
    reader r{slot + 8, slot + length};
    launch_outcome outcome;
    const bool magic = r.u64() == report_magic;
    const std::uint64_t kind = r.u64();
    outcome.message = r.str();
    outcome.kind = kind == 1 ? launch_outcome::error : kind == 2 ? launch_outcome::timeout : launch_outcome::ok;
    kernel_stats& stats = *g_stats_now;
    stats.warp_shuffles += r.u64();
    for (std::size_t i = 0; i < counter_count; ++i) {
        const std::uint64_t v = r.u64();
        std::uint64_t& into = numbers(stats.memory)[i];
        into = i == epochs_index ? std::max(into, v) : into + v;
    }
    for (std::uint64_t n = r.u64(); n > 0 && !r.bad; --n) {
        const auto pc = static_cast<std::uintptr_t>(r.u64());
        instruction_counters c;
        c.shared = static_cast<std::uint8_t>(r.u64());
        c.op = static_cast<std::uint8_t>(r.u64());
        c.width = static_cast<std::uint8_t>(r.u64());
        c.requests = r.u64();
        c.cost = r.u64();
        c.ideal = r.u64();
        c.excess_warps = r.u64();
        c.lanes = r.u64();
        c.sample.cost = r.u64();
        c.sample.lanes = static_cast<std::uint32_t>(r.u64());
        for (auto& a : c.sample.address) a = r.u64();
        trace::add_instructions(pc, c);
    }
    for (std::uint64_t n = r.u64(); n > 0 && !r.bad; --n) {
        trace::hazards::found f;
        f.kind = static_cast<int>(r.u64());
        f.first_pc = static_cast<std::uintptr_t>(r.u64());
        f.second_pc = static_cast<std::uintptr_t>(r.u64());
        f.message = r.str();
        trace::hazards::merge(f);
    }
    if (!magic || r.bad || kind > 2) return {launch_outcome::error, who + " sent a report that cannot be read"};
    return outcome;
}

}  // namespace

bool run_in_pool(std::uint64_t blocks, unsigned threads_per_block, block_runner run, launch_outcome& out) {
    const auto n = static_cast<unsigned>(std::min<std::uint64_t>(g_cores, blocks));
    if (n < 2 || blocks * threads_per_block < min_pool_threads || g_stats_now == nullptr) return false;
    if (!share_grid_data() || !share_printed() || report_slot(0) == nullptr) return false;
    const auto begin = [&](unsigned k) { return blocks * k / n; };
    const pid_t self = getpid();
    std::vector<pid_t> children(n, 0);
    unsigned forked = 1;
    for (unsigned k = 1; k < n; ++k) {
        std::memset(report_slot(k), 0, sizeof(std::uint64_t));  // no earlier launch's report
        const pid_t pid = fork();
        if (pid == 0) child_main(k, begin(k), begin(k + 1), self, run);
        if (pid < 0) break;
        children[k] = pid;
        forked = k + 1;
    }
    try {
        out = run(begin(0), begin(1));
    } catch (...) {
        int status = 0;
        for (unsigned k = 1; k < forked; ++k) reap(children[k], status);
        throw;
    }
    for (unsigned k = 1; k < forked; ++k) {
        launch_outcome o = collect(k, children[k], begin(k), begin(k + 1), out.kind == launch_outcome::ok);
        if (out.kind == launch_outcome::ok) out = std::move(o);
    }
    // The ranges no child could be forked for, in order, as long as the launch goes on.
    for (unsigned k = forked; k < n && out.kind == launch_outcome::ok; ++k) out = run(begin(k), begin(k + 1));
    return true;
}

std::atomic<std::size_t>& printed_bytes() { return *g_printed; }

}  // namespace emu::detail

namespace emu {

void set_cores(unsigned n) { detail::g_cores = n == 0 ? detail::g_detected : detail::clamp_cores(n); }
unsigned cores() { return detail::g_cores; }

}  // namespace emu
