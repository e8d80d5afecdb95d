#pragma once
#include <string>
#include <vector>

#include "process/worker_process.hpp"

namespace course {

// What run_worker's child does between fork and exec, all of it prepared before the fork.
// The grader starts workers from two threads at once (the emulator's run beside the GPU's
// cases), and until it execs, the child of such a process may make only async-signal-safe
// calls: another thread may have held the allocator's or the environment's lock at the fork.
class child_exec {
public:
    // `env` is the child's whole environment, "NAME=value" each.
    child_exec(const std::vector<std::string>& argv, std::vector<std::string> env);
    // In the child: its own process group, the descriptors (place_child_fds), the limits,
    // then exec. Never returns: a step that fails ends the child with code 127 and says why.
    [[noreturn]] void run(int events_w, int output_w, int input_r, const worker_limits& limits) const;

private:
    std::vector<std::string> args_, env_;
    std::vector<char*> argv_, envp_;
};

// The child's environment: this process's, without the names `drop` lists or `extra`
// sets, then `extra` ("NAME=value"; a bare "NAME" only removes it), then `last`.
std::vector<std::string> child_environment(const std::vector<std::string>& drop, const std::vector<std::string>& extra,
                                           const std::vector<std::string>& last);

// Puts a child's descriptors in place: stdout and stderr on output_w, fd 3 on events_w, and
// stdin on input_r (/dev/null when it is -1). Any of the three may itself be 0 to 3: when
// workers start from two threads, a pipe can get fd 3 the moment another run closes it,
// and moving one descriptor onto 3 must not lose another that was there. False (errno
// set) when one cannot be moved. Async-signal-safe.
bool place_child_fds(int events_w, int output_w, int input_r);

}  // namespace course
