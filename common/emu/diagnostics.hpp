#pragma once
// The words of every diagnosis the emulator makes: a barrier or a warp operation misused,
// a deadlock, a fault, a bad launch. The scheduler decides when a launch must stop; these
// say why, naming the kernel, the block, the thread and the line, so that a student can
// act on it. They read no scheduler state: what they describe comes in as arguments.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "emu/cuda_emu.hpp"

namespace emu::detail {

// A call in kernel code (__FILE__, __LINE__), and where in the executable it returns to:
// when the call lies in a helper inlined into the kernel, the grader names the kernel's
// line that called the helper from it ("kernels.cu:12 via kernels.cu:40").
struct call_site {
    const char* file = nullptr;
    int line = 0;
    std::uintptr_t pc = 0;
};

// The barrier that threads of a block wait at; `count` 0 when none does.
struct barrier_wait {
    barrier_kind kind = barrier_kind::sync;
    call_site at;
    unsigned count = 0;
};

// A warp operation: the lanes its mask names, and those that have arrived.
struct warp_wait {
    warp_op_kind kind = warp_op_kind::sync;
    call_site at;
    unsigned mask = 0;
    unsigned arrived = 0;
};

namespace diag {

// " [at exe+0x1a2b]": where in the worker's executable the instruction at `pc` lies, which
// the grader turns into "(at kernels.cu:N)"; "" when it is not in the executable.
std::string code_place(std::uintptr_t pc);

// " [via exe+0x1a2b]": the same for a call whose line the message already names; the grader
// turns it into " via kernels.cu:N" when the call lies in a helper inlined into line N, and
// drops it otherwise.
std::string code_via(std::uintptr_t pc);

// "kernel 'k', block (0,0,0), thread (5,0,0): ", the start of a message about one thread.
std::string thread_where(const char* kernel, const uint3& block, const uint3& thread);

std::string threw(const std::string& who, const char* what);  // what: nullptr when not a std::exception
std::string invalid_launch(const char* kernel, dim3 grid, dim3 block);

// A thread returned while others wait for it.
std::string returned_during_barrier(const std::string& who, const barrier_wait& waiting);
std::string returned_during_warp_op(const std::string& who, const warp_wait& waiting);

// A thread at a barrier that the block cannot complete.
std::string barrier_after_return(const std::string& who, barrier_kind kind, call_site at, unsigned returned);
std::string divergent_barrier(const std::string& who, barrier_kind kind, call_site at, const barrier_wait& waiting);

// A warp operation misused; `call` is the calling lane's (its `arrived` is not read).
std::string bad_width(const std::string& who, const warp_wait& call, int width);
std::string mask_skips_caller(const std::string& who, const warp_wait& call, unsigned lane);
std::string mask_names_missing_lanes(const std::string& who, const warp_wait& call, unsigned missing,
                                     unsigned block_threads);
std::string mask_names_returned_lanes(const std::string& who, const warp_wait& call, unsigned returned);
std::string different_call_same_mask(const std::string& who, const warp_wait& call, const warp_wait& waiting);
std::string overlapping_masks(const std::string& who, const warp_wait& call, const warp_wait& waiting);
std::string too_many_warp_ops(const std::string& who, const warp_wait& call);
std::string shuffle_reads_outside_mask(const std::string& who, const warp_wait& op, unsigned source_lane);

// No thread of the block can go on: who waits where, by warp index.
std::string deadlock(const char* kernel, const uint3& block, const barrier_wait& barrier,
                     const std::vector<std::pair<std::size_t, warp_wait>>& warp_ops, unsigned returned);

// Hazards of traced launches (trace_hazards.cpp): two threads' unordered accesses of a
// __shared__ word, at least one a write; a read of a word no thread of the block wrote.
std::string shared_race(const char* kernel, const uint3& block, const uint3& first, bool first_writes,
                        std::uintptr_t first_pc, const uint3& second, bool second_writes, std::uintptr_t second_pc,
                        bool same_warp);
std::string uninitialized_shared(const char* kernel, const uint3& block, const uint3& thread, std::uintptr_t pc);

// The fault or watchdog alarm that fault_guard caught; `thread` is nullptr when none ran.
std::string fault(const char* kernel, const uint3& block, const uint3* thread);

}  // namespace diag
}  // namespace emu::detail
