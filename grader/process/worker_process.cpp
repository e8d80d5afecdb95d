#include "process/worker_process.hpp"

#include "process/child_exec.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <mutex>
#include <sstream>

namespace course {

namespace {

void append_tail(std::string& tail, const char* data, std::size_t n, std::size_t limit) {
    tail.append(data, n);
    if (tail.size() > 2 * limit) tail.erase(0, tail.size() - limit);
}

void append_head(std::string& head, const char* data, std::size_t n, std::size_t limit) {
    if (head.size() < limit) head.append(data, std::min(n, limit - head.size()));
}

// The process groups of the workers running now. A Ctrl-C (or a SIGTERM) reaches only the
// grader's own process group, not the workers' (each has its own, so a hang can be killed
// whole): the handler kills theirs too, then ends the grader as the signal would have.
constexpr int max_groups = 64;
volatile sig_atomic_t g_groups[max_groups] = {};

void stop_workers_and_die(int sig) {
    for (int i = 0; i < max_groups; ++i)
        if (g_groups[i] > 0) kill(-static_cast<pid_t>(g_groups[i]), SIGKILL);
    signal(sig, SIG_DFL);
    raise(sig);
}

void install_stop_handlers() {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction old{};
        sigaction(sig, nullptr, &old);
        if (old.sa_handler != SIG_DFL) continue;  // ours already, or the program's own choice
        struct sigaction sa{};
        sa.sa_handler = stop_workers_and_die;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, nullptr);
    }
}

// Records a running group or forgets it. Graders run workers from more than one thread
// (the emulator's run beside the GPU's cases), so a slot is claimed under a lock; the
// signal handler only reads the slots.
void track_group(pid_t pgid, bool running) {
    static std::mutex slots;
    const std::lock_guard<std::mutex> hold(slots);
    for (int i = 0; i < max_groups; ++i) {
        if (running && g_groups[i] == 0) {
            g_groups[i] = pgid;
            return;
        }
        if (!running && g_groups[i] == pgid) {
            g_groups[i] = 0;
            return;
        }
    }
}

// COURSE_PROCESS_LOG=FILE: one JSON line per finished child (log_run below;
// scripts/throughput_load.py reads them).
constexpr char process_log_variable[] = "COURSE_PROCESS_LOG";

// A fresh private folder (0700) for one run, the only one a sandboxed worker may write:
// nothing a run leaves there reaches the next. Empty when none can be made.
std::string make_scratch() {
    const char* tmp = std::getenv("TMPDIR");
    std::string path = std::string(tmp != nullptr && tmp[0] == '/' ? tmp : "/tmp") + "/course-worker-XXXXXX";
    return mkdtemp(path.data()) != nullptr ? path : "";
}

// Writes a reply to the worker's stdin. A worker that has died (or closed its stdin) must
// not take the grader with it through SIGPIPE: the signal is held back and discarded.
void write_reply(int fd, const std::string& text) {
    sigset_t pipe_only, old;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    std::size_t done = 0;
    bool broken = false;
    while (done < text.size()) {
        const ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {  // EPIPE: the worker is gone; EAGAIN: it is not reading
            broken = errno == EPIPE;
            break;
        }
        done += static_cast<std::size_t>(n);
    }
    if (broken) {
        const timespec now{0, 0};
        while (sigtimedwait(&pipe_only, nullptr, &now) == SIGPIPE) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

// The child's program, first arguments, wall and CPU seconds, appended with one write, so
// that the graders and guards of a batch can share the file. It answers "where does a
// grading's time go" (scripts/batch_throughput.py).
void log_run(const std::vector<std::string>& argv, const worker_run& run) {
    const char* path = std::getenv(process_log_variable);
    if (path == nullptr || path[0] == '\0' || argv.empty()) return;
    nlohmann::json args = nlohmann::json::array();
    for (std::size_t i = 1; i < argv.size() && i < 4; ++i) args.push_back(argv[i]);
    const std::string line = nlohmann::json{{"program", std::filesystem::path(argv[0]).filename().string()},
                                            {"args", args},
                                            {"seconds", run.seconds},
                                            {"cpu_seconds", run.cpu_seconds}}
                                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                             "\n";
    const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    (void)!::write(fd, line.data(), line.size());
    ::close(fd);
}

}  // namespace

std::string worker_run::describe_end() const {
    if (spawn_failed) return "could not be started";
    if (timed_out) return "was stopped after going quiet for too long (a hang?)";
    if (stopped) return "was stopped by the grader, which no longer needed its result";
    if (term_signal != 0) return std::string("was killed by signal ") + std::to_string(term_signal) + " (" +
                                 strsignal(term_signal) + ")";
    return "exited with code " + std::to_string(exit_code);
}

worker_run run_worker(const std::vector<std::string>& argv, const worker_limits& limits,
                      const std::function<void(const nlohmann::json&)>& on_event,
                      const std::vector<std::string>& extra_env, const worker_reply& reply) {
    worker_run run;
    int events_pipe[2] = {-1, -1}, output_pipe[2] = {-1, -1}, input_pipe[2] = {-1, -1};
    const auto close_all = [&] {
        for (int* p : {events_pipe, output_pipe, input_pipe})
            for (int i = 0; i < 2; ++i)
                if (p[i] >= 0) close(p[i]);
    };
    if (pipe2(events_pipe, O_CLOEXEC) != 0 || pipe2(output_pipe, O_CLOEXEC) != 0 ||
        (reply && pipe2(input_pipe, O_CLOEXEC) != 0)) {
        run.spawn_failed = true;
        run.output_tail = std::string("pipe: ") + std::strerror(errno);
        close_all();
        return run;
    }
    const std::string scratch = make_scratch();
    std::vector<std::string> env = extra_env;
    if (!scratch.empty()) env.push_back("COURSE_WORKER_SCRATCH=" + scratch);
    // The log is the runner's to write (log_run), never a child's: a sandboxed worker that
    // may write /tmp must not be able to add lines to it. CUDA_MPS_PIPE_DIRECTORY last, so
    // that nothing overrides it: one student's wild store under MPS would fail the cases of
    // every submission graded beside it (no_mps_pipe_directory).
    const child_exec child(argv, child_environment({process_log_variable}, env,
                                                   {std::string("CUDA_MPS_PIPE_DIRECTORY=") + no_mps_pipe_directory}));
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid < 0) {
        run.spawn_failed = true;
        run.output_tail = std::string("fork: ") + std::strerror(errno);
        close_all();
        std::error_code ignored;
        std::filesystem::remove_all(scratch, ignored);
        return run;
    }
    if (pid == 0) child.run(events_pipe[1], output_pipe[1], input_pipe[0], limits);
    setpgid(pid, pid);
    install_stop_handlers();
    track_group(pid, true);
    close(events_pipe[1]);
    close(output_pipe[1]);
    if (input_pipe[0] >= 0) {
        close(input_pipe[0]);
        // A worker that does not read its stdin must not stall the supervisor's replies.
        fcntl(input_pipe[1], F_SETFL, fcntl(input_pipe[1], F_GETFL) | O_NONBLOCK);
    }

    std::string line_buf;
    std::string watch_window;  // the output's last bytes, so that watch_for split over two reads is found
    bool ends_in_newline = true;
    auto last_activity = std::chrono::steady_clock::now();
    double replying_seconds = 0;  // spent in reply(): neither the worker's silence nor its time
    std::exception_ptr callback_error;  // from on_event or reply: rethrown once the worker is gone
    bool events_open = true, output_open = true;
    char buf[65536];
    while ((events_open || output_open) && !callback_error) {
        pollfd fds[2] = {{events_pipe[0], POLLIN, 0}, {output_pipe[0], POLLIN, 0}};
        if (!events_open) fds[0].fd = -1;
        if (!output_open) fds[1].fd = -1;
        const int ready = poll(fds, 2, 200);
        if (ready < 0 && errno != EINTR) break;
        auto now = std::chrono::steady_clock::now();
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
                    try {
                        if (on_event) on_event(ev);
                        if (reply) {
                            const std::string answer = reply(ev);
                            if (!answer.empty()) write_reply(input_pipe[1], answer);
                        }
                    } catch (...) {
                        callback_error = std::current_exception();
                        break;
                    }
                    if (reply) {
                        // The reply may have waited (for the GPU): that is not the worker's
                        // silence, nor its running time.
                        const auto after = std::chrono::steady_clock::now();
                        replying_seconds += std::chrono::duration<double>(after - now).count();
                        now = last_activity = after;
                    }
                }
            }
        }
        if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            const ssize_t n = read(output_pipe[0], buf, sizeof buf);
            if (n <= 0) {
                output_open = false;
            } else {
                const auto got = static_cast<std::size_t>(n);
                run.output_bytes += got;
                run.output_lines += static_cast<std::size_t>(std::count(buf, buf + got, '\n'));
                ends_in_newline = buf[got - 1] == '\n';
                append_head(run.output_head, buf, got, limits.keep_first);
                if (!limits.watch_for.empty() && !run.saw_watched) {
                    watch_window.append(buf, got);
                    run.saw_watched = watch_window.find(limits.watch_for) != std::string::npos;
                    if (watch_window.size() >= limits.watch_for.size())
                        watch_window.erase(0, watch_window.size() - (limits.watch_for.size() - 1));
                }
                if (limits.keep_output_head) {
                    append_head(run.output_tail, buf, got, limits.keep_output);
                } else {
                    append_tail(run.output_tail, buf, got, limits.keep_output);
                }
                if (limits.output_counts_as_activity) last_activity = now;
            }
        }
        const double quiet = std::chrono::duration<double>(now - last_activity).count();
        const double total = std::chrono::duration<double>(now - start).count() - replying_seconds;
        if (quiet > limits.quiet_seconds || total > limits.total_seconds) {
            run.timed_out = true;
            kill(-pid, SIGKILL);
            break;
        }
        if (limits.stop != nullptr && limits.stop->load()) {
            run.stopped = true;
            kill(-pid, SIGKILL);
            break;
        }
    }
    if (callback_error) kill(-pid, SIGKILL);
    close(events_pipe[0]);
    close(output_pipe[0]);
    if (input_pipe[1] >= 0) close(input_pipe[1]);
    if (!ends_in_newline) ++run.output_lines;

    int status = 0;
    rusage usage{};
    while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
    }
    run.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                      static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    if (!run.timed_out && !run.stopped) {
        // The worker closed its pipes; make sure nothing it started lingers.
        kill(-pid, SIGKILL);
    }
    track_group(pid, false);
    if (WIFEXITED(status)) {
        run.exit_code = WEXITSTATUS(status);
        if (run.exit_code == 127 && run.events.empty()) run.spawn_failed = true;
    } else if (WIFSIGNALED(status)) {
        run.term_signal = WTERMSIG(status);
    }
    if (run.timed_out || run.stopped) run.term_signal = 0;
    std::error_code ignored;
    if (!scratch.empty()) std::filesystem::remove_all(scratch, ignored);
    if (run.output_tail.size() > limits.keep_output)
        run.output_tail.erase(0, run.output_tail.size() - limits.keep_output);
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    log_run(argv, run);
    if (callback_error) std::rethrow_exception(callback_error);  // the worker is gone, nothing leaks
    return run;
}

std::string find_program(const std::string& name) {
    if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return "";
}

}  // namespace course
