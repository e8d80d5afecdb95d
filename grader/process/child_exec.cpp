#include "process/child_exec.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

extern char** environ;

namespace course {

namespace {

void say(const char* text) { (void)!write(STDERR_FILENO, text, std::strlen(text)); }

[[noreturn]] void child_fails(const char* what, const char* name) {
    const int err = errno;
    say(what);
    say(name);
    say(": ");
    say(strerror(err));
    say("\n");
    _exit(127);
}

// Sets soft and hard limit alike, except for CPU time: the soft limit sends SIGXCPU, which a
// process may catch; the hard limit a second later kills it for good. A limit above the
// one this process already has is lowered to it (only root may raise a hard limit). A
// limit that cannot be set must not run the tool unbounded: the child stops here.
void set_limit(int resource, const std::optional<std::uint64_t>& value, const char* name) {
    if (!value) return;
    rlimit lim{};
    lim.rlim_cur = static_cast<rlim_t>(*value);
    lim.rlim_max = static_cast<rlim_t>(resource == RLIMIT_CPU ? *value + 1 : *value);
    rlimit now{};
    if (getrlimit(resource, &now) == 0 && now.rlim_max != RLIM_INFINITY) {
        lim.rlim_max = std::min(lim.rlim_max, now.rlim_max);
        lim.rlim_cur = std::min(lim.rlim_cur, lim.rlim_max);
    }
    if (setrlimit(resource, &lim) != 0) child_fails("cannot set ", name);
}

std::string name_of(const std::string& entry) { return entry.substr(0, entry.find('=')); }

}  // namespace

std::vector<std::string> child_environment(const std::vector<std::string>& drop, const std::vector<std::string>& extra,
                                           const std::vector<std::string>& last) {
    std::vector<std::string> names = drop;
    for (const auto& e : extra) names.push_back(name_of(e));
    for (const auto& e : last) names.push_back(name_of(e));
    std::vector<std::string> env;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e)
        if (std::find(names.begin(), names.end(), name_of(*e)) == names.end()) env.emplace_back(*e);
    for (const auto& e : extra)
        if (e.find('=') != std::string::npos) env.push_back(e);
    env.insert(env.end(), last.begin(), last.end());
    return env;
}

bool place_child_fds(int events_w, int output_w, int input_r) {
    // Each first above every target (0 to 3), then onto it: dup2 clears close-on-exec on
    // the targets, and the copies above close at exec.
    const auto lift = [](int fd) { return fd < 0 ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 10); };
    const int events = lift(events_w), output = lift(output_w);
    int input = input_r >= 0 ? lift(input_r) : open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (events < 0 || output < 0 || input < 0) return false;
    return dup2(output, STDOUT_FILENO) >= 0 && dup2(output, STDERR_FILENO) >= 0 && dup2(events, 3) >= 0 &&
           dup2(input, STDIN_FILENO) >= 0;
}

child_exec::child_exec(const std::vector<std::string>& argv, std::vector<std::string> env)
    : args_(argv), env_(std::move(env)) {
    for (auto& a : args_) argv_.push_back(a.data());
    argv_.push_back(nullptr);
    for (auto& e : env_) envp_.push_back(e.data());
    envp_.push_back(nullptr);
}

void child_exec::run(int events_w, int output_w, int input_r, const worker_limits& limits) const {
    if (args_.empty()) {
        errno = EINVAL;
        child_fails("cannot start ", "a worker without a program");
    }
    setpgid(0, 0);
    if (!place_child_fds(events_w, output_w, input_r)) child_fails("cannot set up the descriptors of ", argv_[0]);
    set_limit(RLIMIT_CPU, limits.cpu_seconds, "RLIMIT_CPU");
    set_limit(RLIMIT_AS, limits.address_space_bytes, "RLIMIT_AS");
    set_limit(RLIMIT_FSIZE, limits.file_size_bytes, "RLIMIT_FSIZE");
    set_limit(RLIMIT_CORE, limits.core_file_bytes, "RLIMIT_CORE");
    execve(argv_[0], argv_.data(), envp_.data());
    child_fails("cannot start ", argv_[0]);
}

}  // namespace course
