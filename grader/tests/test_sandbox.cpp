// The worker's sandbox. Landlock cannot be undone, so every case applies it in a forked
// child, which tries things and sends back what happened (0 or an errno). On a kernel
// without Landlock the test exits 77, which ctest reports as skipped, never as passed.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "process/worker_process.hpp"
#include "worker/sandbox.hpp"

using namespace course;

namespace {

// What a sandboxed worker may read of its own build folder depends on where the build
// lies: beneath a folder the mode opens (a clone under /tmp in relaxed mode, a course
// installed under /opt), the folder is readable. Anywhere else it must not be.
int expected_own_access(bool relaxed) {
    const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
    std::vector<std::string> open = {"/usr/", "/lib/", "/lib64/", "/bin/", "/sbin/", "/etc/", "/opt/", "/run/"};
    if (relaxed) open.insert(open.end(), {"/tmp/", "/var/tmp/", "/dev/shm/"});
    for (const auto& dir : open)
        if (exe.compare(0, dir.size(), dir) == 0) return 0;
    return EACCES;
}

// What the sandboxed child saw; each int is 0 (it worked) or the errno.
struct outcome {
    char status[16] = "";
    int abi = 0;
    int read_outside = -1, write_outside = -1, create_in_scratch = -1, symlink_in_scratch = -1;
    int read_system = -1, read_own_file = -1, list_own_folder = -1;
    int write_tmp = -1, tcp_connect = -1, signal_parent = -1;
    bool tmpdir_is_scratch = false;
    long core_limit = -1, fsize_mib = -1, as_gib = -1;
    int map_8_gib = -1;
};

int try_open(const std::string& path, int flags) {
    const int fd = open(path.c_str(), flags | O_CLOEXEC, 0644);
    if (fd < 0) return errno;
    close(fd);
    return 0;
}

int try_connect(int port) {
    const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int rc = connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 ? 0 : errno;
    close(s);
    return rc;
}

// A TCP port on 127.0.0.1 that accepts connections (the backlog does, no accept needed).
int listen_on_loopback(int& port) {
    const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    REQUIRE(bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(listen(s, 8) == 0);
    REQUIRE(getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0);
    port = ntohs(a.sin_port);
    return s;
}

std::string temp_folder(const char* tag) {
    const char* tmp = std::getenv("TMPDIR");
    std::string path = std::string(tmp != nullptr && tmp[0] == '/' ? tmp : "/tmp") + "/" + tag + "-XXXXXX";
    REQUIRE(mkdtemp(path.data()) != nullptr);
    return path;
}

std::string own_executable() {
    char buf[4096];
    return realpath("/proc/self/exe", buf) != nullptr ? buf : "";
}

struct fixture {
    std::string outside = temp_folder("sandbox-outside");
    std::string scratch = temp_folder("sandbox-scratch");
    int port = 0;
    int listener = listen_on_loopback(port);
    fixture() { std::ofstream(outside + "/secret.txt") << "the reference solution\n"; }
    ~fixture() {
        close(listener);
        std::error_code ignored;
        std::filesystem::remove_all(outside, ignored);
        std::filesystem::remove_all(scratch, ignored);
    }
};

// Applies the sandbox in a child, runs the probes there and returns what they found.
outcome sandboxed(const sandbox_options& opt, const fixture& f) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        outcome o;
        const sandbox_report r = apply_sandbox(opt);
        std::strncpy(o.status, r.status.c_str(), sizeof o.status - 1);
        o.abi = r.landlock_abi;
        o.read_outside = try_open(f.outside + "/secret.txt", O_RDONLY);
        o.write_outside = try_open(f.outside + "/new.txt", O_WRONLY | O_CREAT);
        o.create_in_scratch = try_open(f.scratch + "/new.txt", O_WRONLY | O_CREAT);
        o.symlink_in_scratch = symlink("/etc", (f.scratch + "/link").c_str()) == 0 ? 0 : errno;
        o.read_system = try_open("/usr/include/stdio.h", O_RDONLY);
        const std::string exe = own_executable();
        o.read_own_file = try_open(exe, O_RDONLY);
        o.list_own_folder = try_open(exe.substr(0, exe.rfind('/')), O_RDONLY | O_DIRECTORY);
        o.write_tmp = try_open("/tmp/course-sandbox-probe-" + std::to_string(getpid()), O_WRONLY | O_CREAT);
        if (o.write_tmp == 0) unlink(("/tmp/course-sandbox-probe-" + std::to_string(getpid())).c_str());
        o.tcp_connect = try_connect(f.port);
        o.signal_parent = kill(getppid(), 0) == 0 ? 0 : errno;
        const char* tmpdir = std::getenv("TMPDIR");
        o.tmpdir_is_scratch = tmpdir != nullptr && f.scratch == tmpdir;
        rlimit l{};
        getrlimit(RLIMIT_CORE, &l);
        o.core_limit = static_cast<long>(l.rlim_cur);
        getrlimit(RLIMIT_FSIZE, &l);
        o.fsize_mib = l.rlim_cur == RLIM_INFINITY ? -1 : static_cast<long>(l.rlim_cur >> 20);
        getrlimit(RLIMIT_AS, &l);
        o.as_gib = l.rlim_cur == RLIM_INFINITY ? -1 : static_cast<long>(l.rlim_cur >> 30);
        void* big = mmap(nullptr, 8ull << 30, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        o.map_8_gib = big == MAP_FAILED ? errno : 0;
        (void)!write(fds[1], &o, sizeof o);
        _exit(0);
    }
    close(fds[1]);
    outcome o;
    const bool got = read(fds[0], &o, sizeof o) == static_cast<ssize_t>(sizeof o);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    REQUIRE(got);
    return o;
}

// Exits 77 (ctest: skipped) when this machine cannot sandbox: a pass would be a lie.
void require_landlock(const outcome& o) {
    if (std::string(o.status) == "on") return;
    const int abi = landlock_abi();
    MESSAGE("Landlock is not available here (landlock_abi() = " << abi << ", status " << o.status
                                                                 << "): the sandbox test is skipped");
    std::cout.flush();
    std::exit(77);
}

sandbox_options options(sandbox_mode mode, const fixture& f) {
    sandbox_options o;
    o.mode = mode;
    o.scratch = f.scratch;
    return o;
}

}  // namespace

TEST_CASE("the report's one line") {
    sandbox_report r;
    r.status = "on";
    r.landlock_abi = 7;
    r.network = true;
    CHECK(sandbox_note(r) == "Sandbox: Landlock ABI 7 (files and TCP restricted).");
    r.landlock_abi = 3;
    r.network = false;
    CHECK(sandbox_note(r) == "Sandbox: Landlock ABI 3 (files restricted; this kernel cannot restrict TCP).");
    r.mode = sandbox_mode::relaxed;
    r.landlock_abi = 7;
    CHECK(sandbox_note(r) == "Sandbox: Landlock ABI 7 (files restricted, relaxed for a profiling tool).");
    r.mode = sandbox_mode::strict;
    r.network = true;
    r.exposed_folder = "/opt";
    CHECK(sandbox_note(r) ==
          "Sandbox: Landlock ABI 7 (files and TCP restricted; but the course lies beneath /opt, which stays readable).");
    r.status = "unavailable";
    r.detail = "the kernel has no Landlock; limits: core 0;";
    CHECK(sandbox_note(r) == "Sandbox: unavailable (the kernel has no Landlock); grading went on without it.");
    r.status = "off";
    r.detail = "switched off by COURSE_SANDBOX=off";
    CHECK(sandbox_note(r) == "Sandbox: off (switched off by COURSE_SANDBOX=off); student code ran unrestricted.");
}

TEST_CASE("modes: the flag, and COURSE_SANDBOX=off from an instructor") {
    setenv("COURSE_WORKER_SCRATCH", "/tmp/course-worker-abc", 1);
    unsetenv("COURSE_SANDBOX");
    sandbox_options o = sandbox_options_from_env(sandbox_mode::relaxed, true);
    CHECK(o.mode == sandbox_mode::relaxed);
    CHECK(o.scratch == "/tmp/course-worker-abc");
    CHECK(o.limit_address_space);
    setenv("COURSE_SANDBOX", "off", 1);
    o = sandbox_options_from_env(sandbox_mode::strict, false);
    CHECK(o.mode == sandbox_mode::off);
    CHECK(o.off_reason == "COURSE_SANDBOX=off");
    CHECK_FALSE(o.limit_address_space);
    unsetenv("COURSE_SANDBOX");
    unsetenv("COURSE_WORKER_SCRATCH");
}

TEST_CASE("every run of a worker gets a fresh scratch folder, removed afterwards") {
    const worker_run run = run_worker(
        {"/bin/sh", "-c", "echo \"$COURSE_WORKER_SCRATCH\"; touch \"$COURSE_WORKER_SCRATCH/left-behind\""}, {5, 10});
    CHECK(run.exit_code == 0);
    const std::string folder = run.output_tail.substr(0, run.output_tail.find('\n'));
    CHECK(folder.find("/course-worker-") != std::string::npos);
    struct stat st{};
    CHECK(stat(folder.c_str(), &st) == -1);
    CHECK(errno == ENOENT);
}

TEST_CASE("off: nothing is restricted") {
    fixture f;
    const outcome o = sandboxed(options(sandbox_mode::off, f), f);
    CHECK(std::string(o.status) == "off");
    CHECK(o.read_outside == 0);
    CHECK(o.write_outside == 0);
    CHECK(o.tcp_connect == 0);
}

TEST_CASE("strict: only the scratch folder can be written; the course is closed") {
    fixture f;
    const outcome o = sandboxed(options(sandbox_mode::strict, f), f);
    require_landlock(o);
    CHECK(o.read_outside == EACCES);
    CHECK(o.write_outside == EACCES);
    CHECK(o.create_in_scratch == 0);
    CHECK(o.symlink_in_scratch == EACCES);
    CHECK(o.read_system == 0);
    CHECK(o.read_own_file == expected_own_access(false));  // the build folder holds the solutions' objects
    CHECK(o.list_own_folder == expected_own_access(false));
    CHECK(o.write_tmp == EACCES);
    CHECK(o.tmpdir_is_scratch);
    CHECK(o.tcp_connect == (o.abi >= 4 ? EACCES : 0));
    CHECK(o.signal_parent == (o.abi >= 6 ? EPERM : 0));
    CHECK(o.core_limit == 0);
    CHECK(o.fsize_mib == 64);
    CHECK(o.as_gib == -1);  // not the emulator: a GPU worker keeps its address space
    CHECK(o.map_8_gib == 0);
}

TEST_CASE("strict on the emulator: the address space is capped at 4 GiB") {
    fixture f;
    sandbox_options opt = options(sandbox_mode::strict, f);
    opt.limit_address_space = true;
    const outcome o = sandboxed(opt, f);
    require_landlock(o);
    CHECK(o.as_gib == 4);
    CHECK(o.map_8_gib == ENOMEM);
}

TEST_CASE("relaxed, for ncu and compute-sanitizer: /tmp and TCP open, the course still closed") {
    fixture f;
    const outcome o = sandboxed(options(sandbox_mode::relaxed, f), f);
    require_landlock(o);
    CHECK(o.write_tmp == 0);
    CHECK(o.tcp_connect == 0);
    CHECK(o.signal_parent == 0);
    CHECK(o.read_own_file == 0);  // the tools read the worker's symbols
    CHECK(o.list_own_folder == expected_own_access(true));
    CHECK(o.read_system == 0);
    CHECK(o.create_in_scratch == 0);
    CHECK_FALSE(o.tmpdir_is_scratch);  // the tool's injected code shares TMPDIR with the tool
}
