#include "supervisor/worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace course {

namespace {

void append_tail(std::string& tail, const char* data, std::size_t n, std::size_t limit) {
    tail.append(data, n);
    if (tail.size() > 2 * limit) tail.erase(0, tail.size() - limit);
}

[[noreturn]] void exec_child(const std::vector<std::string>& argv, int events_w, int output_w,
                             const std::vector<std::string>& extra_env) {
    setpgid(0, 0);
    dup2(output_w, STDOUT_FILENO);
    dup2(output_w, STDERR_FILENO);
    if (events_w != 3) {
        dup2(events_w, 3);
        close(events_w);
    }
    close(output_w);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    for (const auto& kv : extra_env) putenv(const_cast<char*>(kv.c_str()));
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    const std::string msg = "cannot start " + argv[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(STDERR_FILENO, msg.data(), msg.size());
    _exit(127);
}

}  // namespace

std::string worker_run::describe_end() const {
    if (spawn_failed) return "could not be started";
    if (timed_out) return "was stopped after going quiet for too long (a hang?)";
    if (term_signal != 0) return std::string("was killed by signal ") + std::to_string(term_signal) + " (" +
                                 strsignal(term_signal) + ")";
    return "exited with code " + std::to_string(exit_code);
}

worker_run run_worker(const std::vector<std::string>& argv, const worker_limits& limits,
                      const std::function<void(const nlohmann::json&)>& on_event,
                      const std::vector<std::string>& extra_env) {
    worker_run run;
    int events_pipe[2], output_pipe[2];
    if (pipe2(events_pipe, O_CLOEXEC) != 0 || pipe2(output_pipe, O_CLOEXEC) != 0) {
        run.spawn_failed = true;
        run.output_tail = std::string("pipe: ") + std::strerror(errno);
        return run;
    }
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid < 0) {
        run.spawn_failed = true;
        run.output_tail = std::string("fork: ") + std::strerror(errno);
        return run;
    }
    if (pid == 0) {
        // dup2 clears O_CLOEXEC on the new descriptors, so fd 3 and the output survive exec.
        exec_child(argv, events_pipe[1], output_pipe[1], extra_env);
    }
    setpgid(pid, pid);
    close(events_pipe[1]);
    close(output_pipe[1]);

    std::string line_buf;
    auto last_activity = std::chrono::steady_clock::now();
    bool events_open = true, output_open = true;
    char buf[65536];
    while (events_open || output_open) {
        pollfd fds[2] = {{events_pipe[0], POLLIN, 0}, {output_pipe[0], POLLIN, 0}};
        if (!events_open) fds[0].fd = -1;
        if (!output_open) fds[1].fd = -1;
        const int ready = poll(fds, 2, 200);
        if (ready < 0 && errno != EINTR) break;
        const auto now = std::chrono::steady_clock::now();
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            const ssize_t n = read(events_pipe[0], buf, sizeof buf);
            if (n <= 0) {
                events_open = false;
            } else {
                last_activity = now;
                line_buf.append(buf, static_cast<std::size_t>(n));
                for (std::size_t nl; (nl = line_buf.find('\n')) != std::string::npos;) {
                    auto ev = nlohmann::json::parse(line_buf.substr(0, nl), nullptr, false);
                    line_buf.erase(0, nl + 1);
                    if (ev.is_discarded() || !ev.is_object()) continue;
                    run.events.push_back(ev);
                    if (on_event) on_event(ev);
                }
            }
        }
        if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            const ssize_t n = read(output_pipe[0], buf, sizeof buf);
            if (n <= 0) {
                output_open = false;
            } else {
                append_tail(run.output_tail, buf, static_cast<std::size_t>(n), limits.keep_output);
                if (limits.output_counts_as_activity) last_activity = now;
            }
        }
        const double quiet = std::chrono::duration<double>(now - last_activity).count();
        const double total = std::chrono::duration<double>(now - start).count();
        if (quiet > limits.quiet_seconds || total > limits.total_seconds) {
            run.timed_out = true;
            kill(-pid, SIGKILL);
            break;
        }
    }
    close(events_pipe[0]);
    close(output_pipe[0]);

    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!run.timed_out) {
        // The worker closed its pipes; make sure nothing it started lingers.
        kill(-pid, SIGKILL);
    }
    if (WIFEXITED(status)) {
        run.exit_code = WEXITSTATUS(status);
        if (run.exit_code == 127 && run.events.empty()) run.spawn_failed = true;
    } else if (WIFSIGNALED(status)) {
        run.term_signal = WTERMSIG(status);
    }
    if (run.timed_out) run.term_signal = 0;
    if (run.output_tail.size() > limits.keep_output)
        run.output_tail.erase(0, run.output_tail.size() - limits.keep_output);
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return run;
}

}  // namespace course
