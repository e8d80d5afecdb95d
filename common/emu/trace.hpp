#pragma once
// Memory tracing of emulated kernels (emu::set_tracing). The lab objects are compiled with
// gcc's ThreadSanitizer instrumentation (-fsanitize=thread, never linked with libtsan): it
// calls __tsan_read4(address) and the like before every load and store, and
// tsan_entry.cpp turns those calls into trace::access. From there:
//  - trace_spaces.hpp tells shared, global and other memory apart;
//  - trace_requests.cpp groups the lanes' accesses into warp-level requests and counts
//    shared wavefronts and global sectors (emu::memory_counters);
//  - trace_hazards.cpp checks shared memory for races and reads of unwritten words.
// The scheduler and the warp operations tell both where threads synchronise.
// Internal to the emulator.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "emu/emu_stats.hpp"

namespace emu::trace {

// True while a traced launch runs: the instrumentation's callbacks test it first.
extern bool g_active;

// Scheduler hooks; each does nothing unless the launch is traced.
void launch_begin(kernel_stats* stats, const char* kernel);
void launch_end();
void block_begin();
void barrier_done();                                  // a __syncthreads* completed
void warp_op_done(unsigned warp, unsigned mask);      // a warp operation completed for `mask`
void block_end();
void forget_hazards();                                // the stats were reset

// One load or store by the running emulated thread, at the instruction `pc`.
void access(std::uintptr_t address, std::size_t size, bool write, std::uintptr_t pc);

// For the block pool (block_pool.hpp): the running launch's counters per instruction so
// far, by pc, and another process's to add to them.
std::vector<std::pair<std::uintptr_t, instruction_counters>> launch_instructions();
void add_instructions(std::uintptr_t pc, const instruction_counters& c);

namespace hazards {
// A hazard as found: kind 0 a race, 1 an uninitialised read; its pair of instructions.
struct found {
    int kind = 0;
    std::uintptr_t first_pc = 0, second_pc = 0;
    std::string message;
};
// On: every hazard reported for the first time is also kept, for take_journal. merge
// reports another process's as if found here, in the order given.
void journal(bool on);
std::vector<found> take_journal();
void merge(const found& f);

// What trace_requests.cpp tells the race and initialisation checks.
void launch_begin(kernel_stats* stats, const char* kernel, std::uintptr_t lo, std::uintptr_t hi);
void block_begin(unsigned warps);
void barrier_done();
void warp_op_done(unsigned warp, unsigned mask, unsigned live);
void shared_access(std::uintptr_t address, std::size_t size, bool write, std::uintptr_t pc, unsigned thread);
void atomic_access(std::uintptr_t address, std::size_t size, std::uintptr_t pc);
void forget();
}  // namespace hazards

}  // namespace emu::trace
