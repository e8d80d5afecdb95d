#pragma once
// K child processes that get ready on their own, then start one piece of timed work at the
// same moment (bench/gpu_sharing.cu). Each has its own pair of pipes (up: "ready", then its
// result; down: "go"), so that the parent sees at once when one dies before "go" (its up
// pipe ends); after "go" the results are read in order, each within the patience. Each
// child dies with the parent.
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <ctime>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <vector>

namespace bench {

// What a child sends back after "ready" (1) or "cannot" (0).
struct child_result {
    double seconds = -1;     // its timed part; -1: it failed
    double ended = 0;        // CLOCK_MONOTONIC at its end: the same clock in every process
    double pin_seconds = 0;  // setting up that the kind times apart (page-locking)
    int cases = 0;
};

inline double monotonic_seconds() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// A child's side of the start: it says it is ready, or that it cannot run if it had not
// said so yet, and waits for "go".
struct start_gate {
    int up = -1, down = -1;
    bool said = false;
    bool ready() {
        char byte = 1;
        said = true;
        return write(up, &byte, 1) == 1 && read(down, &byte, 1) == 1;
    }
    void cannot() {
        const char byte = 0;
        if (!said) (void)!write(up, &byte, 1);
        said = true;
    }
};

class forked_group {
public:
    // body(i, gate) runs in child i, calls gate.ready() before its timed part and returns
    // its result; an exception is printed and counts as a failure.
    using body = std::function<child_result(int, start_gate&)>;

    forked_group(int k, const body& run) {
        // A child that dies before its "go" must not take the parent with it.
        std::signal(SIGPIPE, SIG_IGN);
        try {
            for (int i = 0; i < k; ++i) {
                int up[2], down[2];
                if (pipe(up) != 0) throw std::runtime_error("pipe failed");
                if (pipe(down) != 0) {
                    close(up[0]);
                    close(up[1]);
                    throw std::runtime_error("pipe failed");
                }
                const pid_t pid = fork();
                if (pid == 0) child(i, run, up, down);
                close(up[1]);
                close(down[0]);
                kids_.push_back({pid, up[0], down[1]});
                if (pid < 0) throw std::runtime_error("fork failed");
            }
        } catch (...) {
            end_all();
            throw;
        }
    }
    ~forked_group() { end_all(); }
    forked_group(const forked_group&) = delete;
    forked_group& operator=(const forked_group&) = delete;

    // Every child ready, then "go" to all; false as soon as one cannot run or dies (it
    // says why on stderr), or when one is not ready within the patience.
    bool start(int patience_s) {
        std::vector<pollfd> waiting;
        for (const auto& c : kids_) waiting.push_back({c.up, POLLIN, 0});
        const double give_up = monotonic_seconds() + patience_s;
        while (!waiting.empty()) {
            const double left = give_up - monotonic_seconds();
            if (left <= 0) return false;
            const int ready = poll(waiting.data(), waiting.size(), static_cast<int>(left * 1000) + 1);
            if (ready < 0 && errno == EINTR) continue;
            if (ready < 0) return false;
            for (std::size_t i = waiting.size(); i-- > 0;) {
                if (waiting[i].revents == 0) continue;
                char byte = 0;
                if (read(waiting[i].fd, &byte, 1) != 1 || byte != 1) return false;  // an end: it died
                waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(i));
            }
        }
        started_ = monotonic_seconds();
        for (const auto& c : kids_)
            if (write(c.down, "g", 1) != 1) return false;
        return true;
    }
    // Every child's result, or none if one failed.
    std::vector<child_result> results(int patience_s) {
        std::vector<child_result> out;
        for (const auto& c : kids_) {
            child_result r;
            if (!read_within(c.up, &r, sizeof r, patience_s) || r.seconds < 0) return {};
            out.push_back(r);
        }
        return out;
    }
    double started() const { return started_; }

private:
    struct kid {
        pid_t pid;
        int up, down;
    };
    std::vector<kid> kids_;
    double started_ = 0;

    void end_all() {
        for (const auto& c : kids_) {
            if (c.pid > 0) kill(c.pid, SIGKILL);
            if (c.pid > 0) waitpid(c.pid, nullptr, 0);
            close(c.up);
            close(c.down);
        }
        kids_.clear();
    }

    [[noreturn]] void child(int i, const body& run, const int up[2], const int down[2]) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(up[0]);
        close(down[1]);
        for (const auto& c : kids_) {  // the earlier children's pipes are the parent's
            close(c.up);
            close(c.down);
        }
        child_result r;
        start_gate gate{up[1], down[0]};
        try {
            r = run(i, gate);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "process %d: %s\n", i, e.what());
        } catch (...) {  // whatever it was, the child ends here, never in the parent's code
            std::fprintf(stderr, "process %d: an exception\n", i);
        }
        gate.cannot();
        (void)!write(up[1], &r, sizeof r);
        _exit(r.seconds < 0 ? 1 : 0);
    }

    // Exactly `size` bytes within `seconds`; false at an end of the pipe (the child died) or the time.
    static bool read_within(int fd, void* into, std::size_t size, int seconds) {
        auto* p = static_cast<char*>(into);
        while (size > 0) {
            pollfd pfd{fd, POLLIN, 0};
            if (poll(&pfd, 1, seconds * 1000) <= 0) return false;
            const ssize_t got = read(fd, p, size);
            if (got <= 0) return false;
            p += got;
            size -= static_cast<std::size_t>(got);
        }
        return true;
    }
};

}  // namespace bench
