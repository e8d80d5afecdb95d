#pragma once
#include <string>

#include "core/protocol.hpp"  // sandbox_mode, sandbox_event

namespace course {

struct sandbox_options {
    sandbox_mode mode = sandbox_mode::strict;
    std::string off_reason;  // why the mode is off, for the report ("COURSE_SANDBOX=off")
    std::string scratch;     // the one folder the worker may write (empty: none)
    // The CPU emulator only: a GPU worker must not cap its address space, because the
    // CUDA driver reserves far more virtual memory than the GPU has.
    bool limit_address_space = false;
};

// Reads the worker's environment: COURSE_SANDBOX=off (an instructor's switch, which wins
// over the flag) and COURSE_WORKER_SCRATCH (the supervisor's private folder for this run).
sandbox_options sandbox_options_from_env(sandbox_mode flag, bool emulated);

// What apply_sandbox() did: the worker's "sandbox" event (core/protocol.hpp), whose note
// sandbox_event_of() fills in.
using sandbox_report = sandbox_event;

// The Landlock ABI version of the running kernel, or -errno (ENOSYS: not built in,
// EOPNOTSUPP: disabled at boot).
int landlock_abi();

// Restricts this process, for good: no new privileges, Landlock rules for files, TCP and
// (ABI 6+) abstract sockets and signals, and resource limits. Call it once, after the CUDA
// context exists and before any student code runs; threads started earlier keep their
// freedom, so start none before. Never throws: a kernel without Landlock gives
// status "unavailable" and the worker goes on.
sandbox_report apply_sandbox(const sandbox_options& options);

// One line for the report's notes, e.g. "Sandbox: Landlock ABI 7 (files and TCP restricted)."
std::string sandbox_note(const sandbox_report& report);

// The worker's "sandbox" event for the supervisor.
sandbox_event sandbox_event_of(const sandbox_report& report);

}  // namespace course
