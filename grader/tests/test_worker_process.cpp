#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <atomic>
#include <algorithm>

#include "process/child_exec.hpp"
#include "process/worker_process.hpp"

using namespace course;

TEST_CASE("events come from fd 3; stdout and stderr are only kept as a tail") {
    const worker_run run = run_worker(
        {"/bin/sh", "-c", "echo noise; echo '{\"event\":\"a\",\"x\":1}' >&3; echo oops >&2; echo 'not json' >&3"},
        {5, 10});
    CHECK(run.exited_normally());
    CHECK(run.exit_code == 0);
    REQUIRE(run.events.size() == 1);
    CHECK(run.events[0]["event"] == "a");
    CHECK(run.output_tail.find("noise") != std::string::npos);
    CHECK(run.output_tail.find("oops") != std::string::npos);
}

TEST_CASE("a worker that goes quiet is killed, with its children") {
    const worker_run run = run_worker({"/bin/sh", "-c", "sleep 30 & sleep 30"}, {0.5, 10});
    CHECK(run.timed_out);
    CHECK_FALSE(run.exited_normally());
    CHECK(run.seconds < 5);
    CHECK(run.describe_end() == "was stopped after going quiet for too long (a hang?)");
}

TEST_CASE("a run its caller no longer wants is stopped, with its children") {
    // A grading's racecheck starts beside the correctness cases and is stopped when one of
    // its parts turns out wrong: well within its own limits, as here.
    std::atomic<bool> stop{false};
    worker_limits limits{20, 30};
    limits.stop = &stop;
    std::thread later([&] {
        usleep(300 * 1000);
        stop = true;
    });
    const worker_run run = run_worker({"/bin/sh", "-c", "sleep 30 & sleep 30"}, limits);
    later.join();
    CHECK(run.stopped);
    CHECK_FALSE(run.timed_out);
    CHECK(run.term_signal == 0);
    CHECK_FALSE(run.exited_normally());
    CHECK(run.seconds < 5);
    CHECK(run.describe_end() == "was stopped by the grader, which no longer needed its result");
}

TEST_CASE("a stop flag that stays false changes nothing") {
    std::atomic<bool> stop{false};
    worker_limits limits{5, 10};
    limits.stop = &stop;
    const worker_run run = run_worker({"/bin/sh", "-c", "sleep 0.3; exit 4"}, limits);
    CHECK_FALSE(run.stopped);
    CHECK(run.exit_code == 4);
    CHECK(run.describe_end() == "exited with code 4");
}

TEST_CASE("a crash is reported with its signal") {
    const worker_run run = run_worker({"/bin/sh", "-c", "kill -SEGV $$"}, {5, 10});
    CHECK(run.term_signal == SIGSEGV);
    CHECK(run.describe_end().rfind("was killed by signal 11", 0) == 0);
}

TEST_CASE("exit codes and programs that do not exist") {
    CHECK(run_worker({"/bin/sh", "-c", "exit 3"}, {5, 10}).exit_code == 3);
    const worker_run missing = run_worker({"/nonexistent/worker"}, {5, 10});
    CHECK(missing.spawn_failed);
    CHECK(missing.output_tail.find("cannot start /nonexistent/worker") != std::string::npos);
}

TEST_CASE("resource limits are set in the child before exec") {
    worker_limits limits{5, 10};
    limits.cpu_seconds = 7;
    limits.address_space_bytes = 512ull << 20;
    limits.file_size_bytes = 1ull << 20;
    limits.core_file_bytes = 0;
    // ulimit reports seconds, KiB of address space, 512-byte blocks of file size, core blocks.
    const worker_run run = run_worker({"/bin/sh", "-c", "echo $(ulimit -t) $(ulimit -v) $(ulimit -f) $(ulimit -c)"}, limits);
    CHECK(run.exit_code == 0);
    CHECK(run.output_tail == "7 524288 2048 0\n");
}

TEST_CASE("a CPU limit stops a busy loop") {
    worker_limits limits{30, 30};
    limits.cpu_seconds = 1;
    const worker_run run = run_worker({"/bin/sh", "-c", "while :; do :; done"}, limits);
    CHECK(run.term_signal == SIGXCPU);
    CHECK(run.seconds < 10);
    CHECK(run.cpu_seconds >= 0.9);
}

TEST_CASE("output can be kept from its start, and every byte is counted") {
    worker_limits limits{5, 10};
    limits.keep_output = 4;
    limits.keep_output_head = true;
    const worker_run run = run_worker({"/bin/sh", "-c", "printf 0123456789"}, limits);
    CHECK(run.output_tail == "0123");
    CHECK(run.output_bytes == 10);
}

TEST_CASE("a watched text is found anywhere in the output, also split over two writes") {
    worker_limits limits{5, 10};
    limits.keep_output = 8;  // the tail alone would not hold it
    limits.watch_for = "[cut after ";
    const worker_run split = run_worker(
        {"/bin/sh", "-c", "printf 'line one\\n[cut '; sleep 0.3; printf 'after 9]\\n'; seq 1 2000"}, limits);
    CHECK(split.saw_watched);
    CHECK(split.output_tail.find("[cut") == std::string::npos);
    const worker_run near = run_worker({"/bin/sh", "-c", "printf '[cut aft'; sleep 0.3; printf 'er'"}, limits);
    CHECK_FALSE(near.saw_watched);
    CHECK_FALSE(run_worker({"/bin/sh", "-c", "printf 'x [cut after '"}, {5, 10}).saw_watched);  // not watched
}

TEST_CASE("the process log is written by the runner, one line per child, and never reaches the child") {
    const std::string log = std::filesystem::temp_directory_path() / "course_process_log_test.jsonl";
    std::filesystem::remove(log);
    setenv("COURSE_PROCESS_LOG", log.c_str(), 1);
    const worker_run run = run_worker({"/bin/sh", "-c", "echo \"${COURSE_PROCESS_LOG:-unset}\""}, {5, 10});
    unsetenv("COURSE_PROCESS_LOG");
    CHECK(run.output_tail == "unset\n");
    std::ifstream in(log);
    std::string line, more;
    REQUIRE(std::getline(in, line));
    CHECK_FALSE(std::getline(in, more));
    const auto rec = nlohmann::json::parse(line);
    CHECK(rec["program"] == "sh");
    CHECK(rec["args"] == nlohmann::json::array({"-c", "echo \"${COURSE_PROCESS_LOG:-unset}\""}));
    CHECK(rec["seconds"].get<double>() >= 0.0);
    std::filesystem::remove(log);
}

TEST_CASE("no child joins an MPS server, even where the grader was told where one is") {
    const char* before = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
    const std::string had = before != nullptr ? before : "";
    setenv("CUDA_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps", 1);
    const worker_run run = run_worker({"/bin/sh", "-c", "echo \"$CUDA_MPS_PIPE_DIRECTORY\""}, {5, 10});
    // Not even a caller's own environment for the child can name one.
    const worker_run asked = run_worker({"/bin/sh", "-c", "echo \"$CUDA_MPS_PIPE_DIRECTORY\""}, {5, 10}, {},
                                        {"CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps"});
    if (before != nullptr) setenv("CUDA_MPS_PIPE_DIRECTORY", had.c_str(), 1);
    else unsetenv("CUDA_MPS_PIPE_DIRECTORY");
    CHECK(run.output_tail == "/proc/course-no-mps\n");
    CHECK(asked.output_tail == "/proc/course-no-mps\n");
}

TEST_CASE("a Ctrl-C of the program that runs a worker stops the worker's whole group") {
    const std::string pid_file = std::filesystem::temp_directory_path() / "course_test_group_pid";
    std::remove(pid_file.c_str());
    const pid_t runner = fork();
    REQUIRE(runner >= 0);
    if (runner == 0) {
        // As in the grader, which leaves SIGINT as it finds it (doctest catches it here).
        signal(SIGINT, SIG_DFL);
        // The worker writes its process group and starts a grandchild that would outlive it.
        run_worker({"/bin/sh", "-c", "echo $$ > " + pid_file + "; sleep 30 & wait"}, {60, 60});
        _exit(0);
    }
    pid_t group = 0;
    for (int i = 0; i < 200 && group == 0; ++i) {
        usleep(20000);
        std::ifstream in(pid_file);
        in >> group;
    }
    REQUIRE(group > 0);
    kill(runner, SIGINT);
    int status = 0;
    waitpid(runner, &status, 0);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGINT);
    // No process of the worker's group is left (once its parent, the init process, has
    // reaped them: allow it a few seconds).
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {
        gone = kill(-group, 0) == -1 && errno == ESRCH;
        if (!gone) usleep(50000);
    }
    CHECK(gone);
    std::remove(pid_file.c_str());
}

TEST_CASE("replies reach the worker's stdin, once per event they answer") {
    // The worker says it is ready, waits for a line, and echoes it back as an event.
    const std::string script =
        "echo '{\"event\":\"ready\"}' >&3; read line; echo \"{\\\"event\\\":\\\"got\\\",\\\"line\\\":\\\"$line\\\"}\" >&3";
    int asked = 0;
    const worker_run run = run_worker({"/bin/sh", "-c", script}, {5, 10}, {}, {}, [&](const nlohmann::json& ev) {
        if (ev["event"] != "ready") return std::string();
        ++asked;
        return std::string("go\n");
    });
    CHECK(run.exit_code == 0);
    CHECK(asked == 1);
    REQUIRE(run.events.size() == 2);
    CHECK(run.events[1]["line"] == "go");
}

TEST_CASE("without replies the worker's stdin is empty") {
    const worker_run run = run_worker({"/bin/sh", "-c", "if read line; then exit 1; else exit 0; fi"}, {5, 10});
    CHECK(run.exit_code == 0);
}

TEST_CASE("a reply to a worker that has closed its stdin does not stop the grader") {
    // The worker closes stdin before its event; writing the reply gets EPIPE, not SIGPIPE.
    const std::string script = "exec 0<&-; echo '{\"event\":\"ready\"}' >&3; sleep 0.3; exit 4";
    const worker_run run = run_worker({"/bin/sh", "-c", script}, {5, 10}, {}, {}, [](const nlohmann::json&) {
        return std::string(1 << 17, 'x');  // more than a pipe holds
    });
    CHECK(run.exit_code == 4);
}

TEST_CASE("a reply the worker does not read is dropped, not waited for") {
    const std::string script = "echo '{\"event\":\"ready\"}' >&3; sleep 0.5; exit 5";
    const worker_run run = run_worker({"/bin/sh", "-c", script}, {5, 10}, {}, {}, [](const nlohmann::json&) {
        return std::string(1 << 20, 'x');  // far more than a pipe holds
    });
    CHECK(run.exit_code == 5);
    CHECK(run.seconds < 4);
}

TEST_CASE("an exception in a reply stops the worker and reaches the caller") {
    const std::string script = "echo '{\"event\":\"ready\"}' >&3; read line; sleep 30";
    const auto start = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH_AS(run_worker({"/bin/sh", "-c", script}, {60, 120}, {}, {},
                                    [](const nlohmann::json&) -> std::string { throw std::runtime_error("no GPU lock"); }),
                         "no GPU lock", std::runtime_error);
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 10);
}

TEST_CASE("time spent on a reply is neither the worker's silence nor its running time") {
    // Quiet limit 0.5 s, total 1 s; the reply takes 1.5 s (as a wait for the GPU may); the
    // worker itself runs for well under both.
    const std::string script = "echo '{\"event\":\"ready\"}' >&3; read line; echo '{\"event\":\"done\"}' >&3";
    const worker_run run = run_worker({"/bin/sh", "-c", script}, {0.5, 1}, {}, {}, [](const nlohmann::json& ev) {
        if (ev["event"] != "ready") return std::string();
        usleep(1500 * 1000);
        return std::string("go\n");
    });
    CHECK_FALSE(run.timed_out);
    CHECK(run.events.size() == 2);
}

TEST_CASE("workers run from two threads at once each end when they do") {
    // A GPU grading runs the emulator's worker on a thread of its own beside the GPU's. A
    // pipe of one run that a child of the other inherited would keep the first run waiting
    // for the end of its output until that child exits: here, 3 s of sleep.
    std::atomic<bool> slow_done{false};
    std::thread slow([&] {
        for (int i = 0; i < 2; ++i) CHECK(run_worker({"/bin/sh", "-c", "sleep 3; echo slow"}, {10, 20}).output_tail == "slow\n");
        slow_done = true;
    });
    int quick_runs = 0;
    double longest = 0;
    bool all_echoed = true;
    while (!slow_done) {
        const worker_run run = run_worker({"/bin/sh", "-c", "echo quick"}, {10, 20});
        all_echoed = all_echoed && run.exit_code == 0 && run.output_tail == "quick\n";
        longest = std::max(longest, run.seconds);
        ++quick_runs;
    }
    slow.join();
    CHECK(all_echoed);
    CHECK(quick_runs > 10);
    CHECK(longest < 2.0);
}

namespace {

// In a child: the three pipes' ends placed by place_child_fds, after `onto3` (one of them)
// was moved to fd 3 as a pipe made while another thread closed fd 3 would be. The child
// echoes its stdin's first line to fd 3 and writes "out" to stdout.
std::string placed_child(const char* onto3) {
    int events[2], output[2], input[2];
    REQUIRE(pipe2(events, O_CLOEXEC) == 0);
    REQUIRE(pipe2(output, O_CLOEXEC) == 0);
    REQUIRE(pipe2(input, O_CLOEXEC) == 0);
    REQUIRE(write(input[1], "go\n", 3) == 3);
    close(input[1]);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        int* moved = std::string(onto3) == "events" ? &events[1] : std::string(onto3) == "output" ? &output[1] : &input[0];
        if (dup2(*moved, 3) < 0) _exit(2);
        *moved = 3;
        if (!place_child_fds(events[1], output[1], input[0])) _exit(3);
        char line[8] = {};
        if (read(STDIN_FILENO, line, 3) != 3) _exit(4);
        if (write(3, line, 3) != 3 || write(STDOUT_FILENO, "out", 3) != 3) _exit(5);
        _exit(0);
    }
    close(events[1]);
    close(output[1]);
    close(input[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    char got[16] = {}, out[16] = {};
    const ssize_t g = read(events[0], got, sizeof got - 1), o = read(output[0], out, sizeof out - 1);
    close(events[0]);
    close(output[0]);
    return std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + " " +
           std::string(got, static_cast<std::size_t>(std::max<ssize_t>(g, 0))) + " " +
           std::string(out, static_cast<std::size_t>(std::max<ssize_t>(o, 0)));
}

}  // namespace

TEST_CASE("a child's descriptors are placed whichever of them already sits on fd 3") {
    CHECK(placed_child("input") == "0 go\n out");
    CHECK(placed_child("output") == "0 go\n out");
    CHECK(placed_child("events") == "0 go\n out");
}

TEST_CASE("a child's environment: the caller's, less what is dropped or set, then the extra and the last") {
    setenv("COURSE_TEST_UNSET", "unset", 1);
    setenv("COURSE_TEST_DROP", "dropped", 1);
    setenv("COURSE_TEST_SET", "old", 1);
    const std::vector<std::string> env =
        child_environment({"COURSE_TEST_DROP"}, {"COURSE_TEST_SET=new", "COURSE_TEST_UNSET"}, {"COURSE_TEST_LAST=1"});
    unsetenv("COURSE_TEST_UNSET");
    unsetenv("COURSE_TEST_DROP");
    unsetenv("COURSE_TEST_SET");
    std::vector<std::string> ours;
    for (const auto& e : env)
        if (e.rfind("COURSE_TEST_", 0) == 0) ours.push_back(e);
    CHECK(ours == std::vector<std::string>{"COURSE_TEST_SET=new", "COURSE_TEST_LAST=1"});
}
