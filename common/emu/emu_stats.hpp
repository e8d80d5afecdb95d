#pragma once
// What the emulated kernels did, counted per launch name: the grader's technique checks
// ask it whether a graded kernel really ran warp shuffles (on a GPU they read the SASS),
// and, in traced launches, how its warps used memory and whether its threads raced.
// Only the course's worker includes this; student code includes cuda_emu.hpp alone.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace emu {

// Summed over every traced launch of a kernel name. A request is one warp-level load or
// store instruction: the lanes of a warp that executed the same instruction together
// (common/emu/trace_requests.cpp says how the emulator groups them).
struct memory_counters {
    std::uint64_t shared_load_requests = 0, shared_load_wavefronts = 0;
    std::uint64_t shared_store_requests = 0, shared_store_wavefronts = 0;
    std::uint64_t global_load_requests = 0, global_load_sectors = 0;  // 32-byte sectors
    std::uint64_t global_store_requests = 0, global_store_sectors = 0;
    std::uint64_t request_lanes = 0;     // lanes that took part in all those requests, summed
    std::uint64_t partial_requests = 0;  // requests with fewer lanes than the warp has threads (divergence or a tail)
    std::uint64_t barriers = 0;          // __syncthreads* completed, one per block-wide barrier
    // Shared atomics are requests too: lanes that hit one bank, the same word included,
    // are served one after another.
    std::uint64_t shared_atomic_requests = 0, shared_atomic_wavefronts = 0;
    std::uint64_t global_atomic_requests = 0;
    // What the shared requests above would take with no bank conflict: one wavefront per
    // phase (a warp for 4-byte accesses, a half-warp for 8, a quarter for 16) with lanes.
    std::uint64_t shared_ideal_wavefronts = 0;
    // Divergence: the warp-requests of one instruction's instance in a block beyond the
    // warps its lanes would fill, packed (a step of 128 threads spread over 8 warps: 4).
    std::uint64_t excess_warp_requests = 0;
    // The most synchronisation epochs (between barriers and whole-warp operations) in
    // which one warp of one block touched shared memory: a tree through shared memory
    // takes one per step, a warp-shuffle reduction's combine two.
    std::uint64_t shared_epochs = 0;
    std::uint64_t warps = 0;  // warps of the traced blocks, summed
};

// An instruction's costliest request (the first of them in launch order), lane by lane:
// what the grader's HTML report draws as banks or sectors.
struct request_sample {
    std::uint64_t cost = 0;   // its wavefronts (shared) or sectors (global); 0: none yet
    std::uint32_t lanes = 0;  // the lanes that took part
    std::uint64_t address[32] = {};
};

// The lanes of one warp that executed an instruction between two of the block's barriers
// (`step` counts the barriers before), in a launch's block (0,0,0): a tree's strip.
struct lane_step {
    std::uint32_t step = 0, warp = 0, lanes = 0;
};
inline constexpr std::size_t max_lane_steps = 512;  // per instruction

// One load, store or atomic instruction of a kernel, summed over its requests.
struct instruction_counters {
    std::uint8_t shared = 0;  // 1 shared memory, 0 global
    std::uint8_t op = 0;      // 0 load, 1 store, 2 atomic
    std::uint8_t width = 0;   // bytes per lane
    std::uint64_t requests = 0;
    std::uint64_t cost = 0;   // shared: wavefronts; global: 32-byte sectors
    std::uint64_t ideal = 0;  // shared: wavefronts with no conflict
    std::uint64_t excess_warps = 0;
    std::uint64_t lanes = 0;
    request_sample sample;
    std::vector<lane_step> steps;  // the first launch's block (0,0,0), up to max_lane_steps
};

// A shared-memory hazard of a traced launch, like CUDA's racecheck and initcheck report.
struct hazard {
    std::string kind;     // "race" or "uninitialized"
    // Names the kernel, block, threads and places; places are " [at exe+0x...]" marks
    // that the grader turns into "(at kernels.cu:N)" (grader/core/code_place.hpp).
    std::string message;
};

struct kernel_stats {
    std::uint64_t launches = 0;
    // Warp-level shuffles completed (__shfl_sync, _up, _down, _xor): one per call that
    // all lanes of its mask made together, as a GPU counts one SHFL per warp.
    std::uint64_t warp_shuffles = 0;
    bool traced = false;  // at least one launch ran with tracing on: `memory` and the hazards count
    memory_counters memory;
    // By code place (" [at exe+0x...]", emu/diagnostics.hpp), when traced.
    std::map<std::string, instruction_counters> instructions;
    std::vector<hazard> hazards;     // the first few, in the order found
    std::uint64_t hazard_count = 0;  // distinct (kind, pair of instructions), all of them
};

// Counts per launch name (the name course::launch was given) since the last reset.
std::map<std::string, kernel_stats> launch_stats();
void reset_launch_stats();

// Off by default. On: launches record memory counters and hazards, which costs time
// (docs/emulator.md); off, the lab objects' instrumentation callbacks return at once.
void set_tracing(bool on);
bool tracing();
// On by default. Off: traced launches still look for hazards but count no requests
// (memory_counters and instructions stay empty), which costs about half the time.
void set_counting(bool on);

// The processes that run a launch's blocks (common/emu/block_pool.hpp): the cores this
// process may run on, or COURSE_EMU_CORES when it is set; 0 restores that. Counters,
// hazards and diagnoses are the same on any number.
void set_cores(unsigned n);
unsigned cores();

// Off by default. On: every warp shuffle hands its lanes a changed value (the lowest bit
// of the exponent of a float, a bit of an integer, flipped), so that the grader can ask
// whether a kernel's shuffles carry its result (grader/worker/counters.cpp).
void set_perturb_shuffles(bool on);

}  // namespace emu
