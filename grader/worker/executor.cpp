#include "worker/executor.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <vector>

#include "course/cuda_compat.hpp"
#include "emu/device_memory.hpp"
#include "emu/fault_guard.hpp"
#include "worker/syscall_filter.hpp"

namespace emu {

void to_json(nlohmann::json& j, const memory_counters& m) {
    j = {m.shared_load_requests,  m.shared_load_wavefronts, m.shared_store_requests, m.shared_store_wavefronts,
         m.global_load_requests,  m.global_load_sectors,    m.global_store_requests, m.global_store_sectors,
         m.request_lanes,         m.partial_requests,       m.barriers,
         m.shared_atomic_requests, m.shared_atomic_wavefronts, m.global_atomic_requests,
         m.shared_ideal_wavefronts, m.excess_warp_requests, m.shared_epochs, m.warps};
}
void from_json(const nlohmann::json& j, memory_counters& m) {
    std::uint64_t* f[] = {&m.shared_load_requests, &m.shared_load_wavefronts, &m.shared_store_requests,
                          &m.shared_store_wavefronts, &m.global_load_requests, &m.global_load_sectors,
                          &m.global_store_requests, &m.global_store_sectors, &m.request_lanes,
                          &m.partial_requests, &m.barriers, &m.shared_atomic_requests,
                          &m.shared_atomic_wavefronts, &m.global_atomic_requests, &m.shared_ideal_wavefronts,
                          &m.excess_warp_requests, &m.shared_epochs, &m.warps};
    if (!j.is_array() || j.size() != std::size(f)) throw std::invalid_argument("bad memory counters");
    for (std::size_t i = 0; i < std::size(f); ++i) *f[i] = j.at(i).get<std::uint64_t>();
}
void to_json(nlohmann::json& j, const instruction_counters& c) {
    nlohmann::json steps = nlohmann::json::array();
    for (const lane_step& s : c.steps) steps.push_back({s.step, s.warp, s.lanes});
    j = {c.shared, c.op,        c.width,        c.requests,       c.cost,
         c.ideal,  c.excess_warps, c.lanes,     c.sample.cost,    c.sample.lanes,
         c.sample.address, steps};
}
void from_json(const nlohmann::json& j, instruction_counters& c) {
    if (!j.is_array() || j.size() != 12) throw std::invalid_argument("bad instruction counters");
    c.sample.cost = j.at(8).get<std::uint64_t>();
    c.sample.lanes = j.at(9).get<std::uint32_t>();
    const auto& address = j.at(10);
    if (!address.is_array() || address.size() != 32) throw std::invalid_argument("bad instruction sample");
    for (std::size_t l = 0; l < 32; ++l) c.sample.address[l] = address.at(l).get<std::uint64_t>();
    const auto& steps = j.at(11);
    if (!steps.is_array() || steps.size() > max_lane_steps) throw std::invalid_argument("bad instruction steps");
    for (const auto& s : steps) {
        if (!s.is_array() || s.size() != 3) throw std::invalid_argument("bad instruction step");
        c.steps.push_back({s.at(0).get<std::uint32_t>(), s.at(1).get<std::uint32_t>(), s.at(2).get<std::uint32_t>()});
    }
    c.shared = j.at(0).get<std::uint8_t>();
    c.op = j.at(1).get<std::uint8_t>();
    c.width = j.at(2).get<std::uint8_t>();
    c.requests = j.at(3).get<std::uint64_t>();
    c.cost = j.at(4).get<std::uint64_t>();
    c.ideal = j.at(5).get<std::uint64_t>();
    c.excess_warps = j.at(6).get<std::uint64_t>();
    c.lanes = j.at(7).get<std::uint64_t>();
}
void to_json(nlohmann::json& j, const hazard& h) { j = {{"kind", h.kind}, {"message", h.message}}; }
void from_json(const nlohmann::json& j, hazard& h) {
    h.kind = j.at("kind").get<std::string>();
    h.message = j.at("message").get<std::string>();
}
void to_json(nlohmann::json& j, const kernel_stats& s) {
    j = {{"launches", s.launches}, {"warp_shuffles", s.warp_shuffles}, {"traced", s.traced},
         {"memory", s.memory},     {"hazards", s.hazards},             {"hazard_count", s.hazard_count},
         {"instructions", s.instructions}};
}
void from_json(const nlohmann::json& j, kernel_stats& s) {
    s.launches = j.at("launches").get<std::uint64_t>();
    s.warp_shuffles = j.at("warp_shuffles").get<std::uint64_t>();
    s.traced = j.at("traced").get<bool>();
    s.memory = j.at("memory").get<memory_counters>();
    s.hazards = j.at("hazards").get<std::vector<hazard>>();
    s.hazard_count = j.at("hazard_count").get<std::uint64_t>();
    s.instructions = j.at("instructions").get<std::map<std::string, instruction_counters>>();
}

namespace memory {
void to_json(nlohmann::json& j, const allocation_info& a) {
    j = {a.user, a.bytes, a.body, a.body_end, a.label, a.count, a.elem_bytes, a.elem_name};
}
void from_json(const nlohmann::json& j, allocation_info& a) {
    a.user = j.at(0).get<std::uintptr_t>();
    a.bytes = j.at(1).get<std::size_t>();
    a.body = j.at(2).get<std::uintptr_t>();
    a.body_end = j.at(3).get<std::uintptr_t>();
    a.label = j.at(4).get<std::string>();
    a.count = j.at(5).get<std::size_t>();
    a.elem_bytes = j.at(6).get<std::size_t>();
    a.elem_name = j.at(7).get<std::string>();
}
}  // namespace memory

}  // namespace emu

namespace course {

namespace {

// Device memory the executor shares: far more than the emulator's largest cases use.
constexpr std::size_t arena_bytes = std::size_t{1} << 30;
// A reply larger than this is not the executor's own: the harness stops reading it.
constexpr std::size_t max_reply = std::size_t{16} << 20;

// One JSON document per line over a socket.
class line_channel {
public:
    // `harness`: sends with MSG_NOSIGNAL, so that an executor that died answers EPIPE, not a
    // SIGPIPE that would end the harness too; the executor may only write(2).
    explicit line_channel(int fd = -1, bool harness = false) : fd_(fd), harness_(harness) {}
    int fd() const { return fd_; }

    bool send(const nlohmann::json& j) {
        const std::string text = j.dump() + "\n";
        for (std::size_t done = 0; done < text.size();) {
            const ssize_t w = harness_ ? ::send(fd_, text.data() + done, text.size() - done, MSG_NOSIGNAL)
                                       : ::write(fd_, text.data() + done, text.size() - done);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) return false;
            done += static_cast<std::size_t>(w);
        }
        return true;
    }
    // The next line; false at the end of the stream, on an error, after `timeout_ms`
    // (-1: none) with nothing new, or past `limit` bytes.
    bool receive(std::string& line, int timeout_ms, std::size_t limit, bool& timed_out) {
        timed_out = false;
        for (;;) {
            const auto nl = buf_.find('\n');
            if (nl != std::string::npos) {
                line = buf_.substr(0, nl);
                buf_.erase(0, nl + 1);
                return true;
            }
            if (buf_.size() > limit) return false;
            if (timeout_ms >= 0) {
                pollfd p{fd_, POLLIN, 0};
                const int r = ::poll(&p, 1, timeout_ms);
                if (r < 0 && errno == EINTR) continue;
                if (r == 0) {
                    timed_out = true;
                    return false;
                }
            }
            char chunk[65536];
            const ssize_t n = ::read(fd_, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return false;
            buf_.append(chunk, static_cast<std::size_t>(n));
        }
    }

private:
    int fd_;
    bool harness_;
    std::string buf_;
};

// ---- the executor (the child) ----

struct lab_versions {
    lab_parts* v[3] = {nullptr, nullptr, nullptr};  // student, reference, baseline
};

nlohmann::json failure(const char* kind, const std::string& what) {
    return {{"ok", false}, {"kind", kind}, {"what", what}};
}

nlohmann::json serve_one(const lab_versions& lab, const nlohmann::json& req) {
    const std::string op = req.at("op").get<std::string>();
    if (op == "stats") return {{"ok", true}, {"stats", emu::launch_stats()}};
    if (op == "reset") {
        emu::reset_launch_stats();
        return {{"ok", true}};
    }
    if (op == "count") {
        emu::set_counting(req.at("on").get<bool>());
        return {{"ok", true}};
    }
    if (op == "perturb") {
        emu::set_perturb_shuffles(req.at("on").get<bool>());
        return {{"ok", true}};
    }
    if (op == "trace") {
        emu::set_tracing(req.at("on").get<bool>());
        return {{"ok", true}};
    }
    if (op != "run") return failure("other", "unknown request " + op);
    emu::memory::install(req.at("memory").get<std::vector<emu::memory::allocation_info>>());
    const auto& parts = *lab.v[req.at("version").get<int>()];
    const part& p = parts.at(req.at("part").get<std::size_t>());
    const auto ptr = [&](const char* key) { return reinterpret_cast<float*>(req.at(key).get<std::uintptr_t>()); };
    try {
        launch_args a;
        a.in = ptr("in");
        a.out = ptr("out");
        a.scratch = ptr("scratch");
        a.n = req.at("n").get<std::uint64_t>();
        a.rows = req.at("rows").get<unsigned>();
        a.cols = req.at("cols").get<unsigned>();
        p.launch(a);
        return {{"ok", true}};
    } catch (const emu::kernel_timeout& e) {
        return failure("timeout", e.what());
    } catch (const contract_error& e) {
        return failure("contract", e.what());
    } catch (const std::exception& e) {
        return failure("fault", e.what());
    }
}

[[noreturn]] void executor_main(const lab_versions& lab, int sock) {
    // Nothing of the worker's but the socket and the output streams: not its event channel
    // (fd 3), not its "go" pipe (stdin).
    for (int fd = 0; fd < 4096; ++fd)
        if (fd != sock && fd != 1 && fd != 2) ::close(fd);
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    emu::memory::open_arena();
    line_channel ch(sock);
    const std::string unfiltered = filter_system_calls(sock);
    ch.send({{"ok", true}, {"filtered", unfiltered.empty()}, {"why", unfiltered}});
    std::string line;
    bool timed_out = false;
    while (ch.receive(line, -1, max_reply, timed_out)) {
        nlohmann::json reply;
        try {
            reply = serve_one(lab, nlohmann::json::parse(line));
        } catch (const std::exception& e) {
            reply = failure("other", std::string("bad request: ") + e.what());
        }
        if (!ch.send(reply)) break;
    }
    _exit(0);
}

// ---- the harness's side ----

struct executor_state {
    pid_t pid = -1;
    line_channel ch;
    bool lost = false;
    std::string lost_why;
};
executor_state g_exec;

std::string describe_end(int status) {
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        if (sig == SIGSYS)
            return "the process that runs the kernels was stopped for a system call that kernel code may not make "
                   "(it may touch only its own memory)";
        return std::string("the process that runs the kernels was killed by signal ") + std::to_string(sig) + " (" +
               strsignal(sig) + ")";
    }
    if (WIFEXITED(status)) return "the process that runs the kernels exited with code " + std::to_string(WEXITSTATUS(status));
    return "the process that runs the kernels stopped";
}

// Kills the executor and waits for it; its end, or nothing when it could not be waited for.
std::optional<int> end_executor(const std::string& why_afterwards) {
    ::kill(g_exec.pid, SIGKILL);
    int status = 0;
    pid_t r;
    while ((r = ::waitpid(g_exec.pid, &status, 0)) < 0 && errno == EINTR) {
    }
    g_exec.lost = true;
    g_exec.lost_why = why_afterwards;
    return r == g_exec.pid ? std::optional<int>(status) : std::nullopt;
}

[[noreturn]] void lose(const std::string& why) {
    if (!g_exec.lost && g_exec.pid > 0) {
        const std::optional<int> status = end_executor(why);
        if (why.empty() && status) g_exec.lost_why = describe_end(*status);
    }
    throw executor_lost(g_exec.lost_why);
}

nlohmann::json call(const nlohmann::json& req) {
    if (g_exec.lost) throw executor_lost(g_exec.lost_why);
    if (!g_exec.ch.send(req)) lose("");
    // The executor's own watchdog stops a kernel first; this is for one that stops it.
    const int timeout_ms = static_cast<int>((emu::fault::longest_watchdog_seconds() + 20) * 1000);
    std::string line;
    bool timed_out = false;
    if (!g_exec.ch.receive(line, timeout_ms, max_reply, timed_out))
        lose(timed_out ? "the process that runs the kernels stopped answering" : "");
    nlohmann::json reply;
    try {
        reply = nlohmann::json::parse(line);
        if (!reply.is_object() || !reply.at("ok").is_boolean()) throw std::invalid_argument("not a reply");
    } catch (const std::exception&) {
        lose("the process that runs the kernels sent something that is not a reply");
    }
    if (reply.at("ok").get<bool>()) return reply;
    const std::string kind = reply.value("kind", "other"), what = reply.value("what", "");
    if (kind == "timeout") throw emu::kernel_timeout(what);
    if (kind == "contract") throw contract_error(what);
    if (kind == "fault") throw emu::kernel_error(what);
    throw std::runtime_error(what);
}

nlohmann::json run_request(int version, std::size_t index) {
    return {{"op", "run"}, {"version", version}, {"part", index}, {"memory", emu::memory::snapshot()}};
}

std::uintptr_t as_int(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

void point_at_executor(lab_parts& parts, int version) {
    for (std::size_t i = 0; i < parts.size(); ++i) {
        parts[i].launch = [version, i](const launch_args& a) {
            auto req = run_request(version, i);
            req.update({{"in", as_int(a.in)}, {"out", as_int(a.out)}, {"scratch", as_int(a.scratch)}, {"n", a.n},
                        {"rows", a.rows}, {"cols", a.cols}});
            call(req);
        };
    }
}

}  // namespace

void start_kernel_executor(lab_parts& student, lab_parts& reference, lab_parts& baseline, std::string& note) {
    emu::memory::use_shared_arena(arena_bytes);
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) throw std::runtime_error("socketpair failed");
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("cannot start the process that runs the kernels (fork failed)");
    if (pid == 0) {
        lab_versions lab;
        lab.v[0] = &student;
        lab.v[1] = &reference;
        lab.v[2] = &baseline;
        executor_main(lab, sv[1]);
    }
    ::close(sv[1]);
    g_exec.pid = pid;
    g_exec.ch = line_channel(sv[0], true);
    point_at_executor(student, 0);
    point_at_executor(reference, 1);
    point_at_executor(baseline, 2);
    std::string line;
    bool timed_out = false;
    nlohmann::json hello;
    if (!g_exec.ch.receive(line, 20000, max_reply, timed_out)) lose("");
    hello = nlohmann::json::parse(line, nullptr, false);
    const bool filtered = hello.is_object() && hello.value("filtered", false);
    note = filtered ? "Kernels run in a process of their own under a system-call filter (seccomp)."
                    : "Kernels run in a process of their own; no system-call filter (" +
                          (hello.is_object() ? hello.value("why", std::string("unknown")) : std::string("unknown")) + ").";
}

bool executor_running() { return g_exec.pid > 0 && !g_exec.lost; }

void stop_kernel_executor() {
    // It has nothing left to do: no reason to wait for it to notice.
    if (executor_running()) (void)end_executor("the process that runs the kernels was stopped at the end of the worker's job");
}

std::map<std::string, emu::kernel_stats> executor_launch_stats() {
    if (g_exec.pid <= 0) return emu::launch_stats();
    return call({{"op", "stats"}}).at("stats").get<std::map<std::string, emu::kernel_stats>>();
}

void executor_reset_launch_stats() {
    if (g_exec.pid <= 0) return emu::reset_launch_stats();
    call({{"op", "reset"}});
}

void executor_set_counting(bool on) {
    if (g_exec.pid <= 0) return emu::set_counting(on);
    call({{"op", "count"}, {"on", on}});
}

void executor_set_perturb_shuffles(bool on) {
    if (g_exec.pid <= 0) return emu::set_perturb_shuffles(on);
    call({{"op", "perturb"}, {"on", on}});
}

void executor_set_tracing(bool on) {
    if (g_exec.pid <= 0) return emu::set_tracing(on);
    call({{"op", "trace"}, {"on", on}});
}

}  // namespace course
