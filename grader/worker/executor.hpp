#pragma once
// The CPU emulator only. On the emulator a kernel is host code, so it does not run in the
// worker that judges it: the worker forks a kernel executor before it makes any input or
// expected value, and the executor runs every launch of every version of every part,
// while the worker (the harness) keeps the inputs, the expected values, the comparisons,
// the events and the reports. What the executor can reach:
//  - device memory: one shared arena (emu::memory::use_shared_arena) that both map; the
//    harness allocates, uploads and reads back, and judges what it reads;
//  - one socket: its requests in, its replies out (JSON lines), which the harness parses
//    as untrusted data;
//  - stdout and stderr, for the kernels' printf (bounded by the emulator's shims);
//  - nothing else: every other file descriptor is closed, and a system-call filter
//    (syscall_filter.hpp) kills it at any call outside that list.
// Counters and shuffles are counted in the executor by the emulator's own code, which
// kernel code cannot write: every load and store of kernel code is checked
// (common/emu/access_check.hpp) and may not leave its buffers, shared memory and stack.
#include <map>
#include <stdexcept>
#include <string>

#include "emu/emu_stats.hpp"
#include "worker/part.hpp"

namespace course {

// The executor died or stopped answering: nothing more can run in it.
class executor_lost : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Forks the executor for the three versions of a lab's parts (student, reference,
// baseline) and points each part's reduce/transpose at it. Call it once, before any input
// exists. `note` gets one line for the report on how the executor is confined.
void start_kernel_executor(lab_parts& student, lab_parts& reference, lab_parts& baseline, std::string& note);

// Whether kernels run in an executor that still answers.
bool executor_running();
// Ends the executor and waits for it, however the worker's job ends: its CPU time then
// counts as the worker's (the process log of scripts/throughput_load.py), and no process
// of the worker outlives it. Nothing runs there afterwards (executor_lost).
void stop_kernel_executor();

// The emulator's counters of the executor's launches, as emu::launch_stats() and friends
// would give them in one process (emu/emu_stats.hpp); without an executor, this process's.
std::map<std::string, emu::kernel_stats> executor_launch_stats();
void executor_reset_launch_stats();
void executor_set_tracing(bool on);
void executor_set_perturb_shuffles(bool on);
void executor_set_counting(bool on);

}  // namespace course
