#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace course {

struct worker_run {
    std::vector<nlohmann::json> events;
    int exit_code = -1;    // valid when the worker exited normally
    int term_signal = 0;   // the signal that ended it, if any
    bool timed_out = false;  // killed by the supervisor for going quiet too long
    bool spawn_failed = false;
    std::string output_tail;  // the last bytes of its stdout and stderr
    double seconds = 0;

    bool exited_normally() const { return exit_code >= 0 && term_signal == 0 && !timed_out && !spawn_failed; }
    std::string describe_end() const;  // "exit code 3", "killed by SIGSEGV", ...
};

struct worker_limits {
    double quiet_seconds = 30;   // no event for this long: the worker is hung
    double total_seconds = 600;  // hard cap on the whole run
    std::size_t keep_output = 16 * 1024;  // bytes of stdout and stderr kept (the last ones)
    bool output_counts_as_activity = false;  // for tools that report on stdout, not fd 3
};

// Runs a worker in its own process group with its events on fd 3 and its stdout and
// stderr captured. A worker that goes quiet past the limit, or runs past the total, is
// killed with its whole group: a hung kernel costs that run only.
worker_run run_worker(const std::vector<std::string>& argv, const worker_limits& limits,
                      const std::function<void(const nlohmann::json&)>& on_event = {},
                      const std::vector<std::string>& extra_env = {});

}  // namespace course
