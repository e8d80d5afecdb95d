#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace course {

// CUDA_MPS_PIPE_DIRECTORY for every process the grader starts: a folder no one can make
// (in /proc), so that no worker joins an NVIDIA MPS server, under which a fatal fault of one
// client reaches every client on the GPU. CUDA runs without MPS when it cannot reach MPS's
// control daemon.
inline constexpr char no_mps_pipe_directory[] = "/proc/course-no-mps";

struct worker_run {
    std::vector<nlohmann::json> events;
    int exit_code = -1;    // valid when the worker exited normally
    int term_signal = 0;   // the signal that ended it, if any
    bool timed_out = false;  // killed by the supervisor for going quiet too long
    bool stopped = false;    // killed because the caller no longer wanted it (worker_limits::stop)
    bool spawn_failed = false;
    std::string output_tail;  // the last bytes of its stdout and stderr (the first, with keep_output_head)
    std::size_t output_bytes = 0;  // every byte it wrote to stdout and stderr, kept or not
    std::string output_head;       // the first keep_first bytes of stdout and stderr (worker_limits)
    std::size_t output_lines = 0;  // lines it wrote to stdout and stderr, kept or not (a last one without '\n' counts)
    bool saw_watched = false;      // worker_limits::watch_for appeared in its stdout or stderr, kept or not
    double seconds = 0;
    double cpu_seconds = 0;  // user + system time of the worker and of the children it waited for

    bool exited_normally() const {
        return exit_code >= 0 && term_signal == 0 && !timed_out && !stopped && !spawn_failed;
    }
    std::string describe_end() const;  // "exit code 3", "killed by SIGSEGV", ...
};

struct worker_limits {
    double quiet_seconds = 30;   // no event for this long: the worker is hung
    double total_seconds = 600;  // hard cap on the whole run
    std::size_t keep_output = 16 * 1024;  // bytes of stdout and stderr kept (the last ones, unless keep_output_head)
    bool output_counts_as_activity = false;  // for tools that report on stdout, not fd 3
    bool keep_output_head = false;  // keep the first keep_output bytes, not the last: a compiler's first errors matter
    std::size_t keep_first = 0;  // also keep this many first bytes in output_head (the kernels' printf, --show-output)
    std::string watch_for;       // a text whose appearance anywhere in the output sets saw_watched
    // Once it reads true, the run is killed with its group within a poll (200 ms) and marked
    // stopped: for a run started before the caller knew whether it would want the result.
    const std::atomic<bool>* stop = nullptr;

    // Resource limits set in the child before exec, inherited by everything it starts
    // (each process counts its own CPU time and address space). Unset: no limit. For tools
    // fed untrusted input, such as a compiler on a student's file.
    std::optional<std::uint64_t> cpu_seconds;          // RLIMIT_CPU: SIGXCPU, then SIGKILL a second later
    std::optional<std::uint64_t> address_space_bytes;  // RLIMIT_AS: allocations fail past it
    std::optional<std::uint64_t> file_size_bytes;      // RLIMIT_FSIZE: SIGXFSZ on a write past it
    std::optional<std::uint64_t> core_file_bytes;      // RLIMIT_CORE: 0 writes no core dumps
};

// Limits with these two timeouts and the defaults above otherwise.
inline worker_limits timeouts(double quiet_seconds, double total_seconds) {
    worker_limits limits;
    limits.quiet_seconds = quiet_seconds;
    limits.total_seconds = total_seconds;
    return limits;
}

// What the supervisor answers an event with, on the worker's stdin ("" for nothing; what
// a worker does not read is dropped, never waited for). It is called after on_event, and
// the worker waits for it: time it spends (waiting for the GPU, say) counts neither as the
// worker's silence nor against its total. An exception from on_event or the reply kills
// the worker with its group; run_worker rethrows it once the worker is gone.
using worker_reply = std::function<std::string(const nlohmann::json& event)>;

// Runs a worker in its own process group with its events on fd 3 and its stdout and
// stderr captured. A worker that goes quiet past the limit, or runs past the total, is
// killed with its whole group: a hung kernel costs that run only. Each run gets a fresh
// private folder, named by COURSE_WORKER_SCRATCH and removed when the run ends: the one
// folder a sandboxed worker may write. Its stdin is /dev/null, or with `reply` a pipe
// that carries the replies.
worker_run run_worker(const std::vector<std::string>& argv, const worker_limits& limits,
                      const std::function<void(const nlohmann::json&)>& on_event = {},
                      const std::vector<std::string>& extra_env = {}, const worker_reply& reply = {});

// `name` if it holds a '/' (and is executable), else its first executable match on PATH
// (/usr/bin:/bin when PATH is unset); "" when none.
std::string find_program(const std::string& name);

}  // namespace course
