// The emulator's kernel executor (worker/executor.hpp): a part's launches run in a child
// process that shares only device memory with the harness; its errors come back as the
// harness's exceptions; a system call outside the filter kills it, and the harness, which
// goes on, says why.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include <string>

#include "course/cuda_compat.hpp"
#include "worker/executor.hpp"

namespace {

course::part reduction_part(const char* id, std::function<void(const float*, float*, std::size_t, float*)> f) {
    course::part p;
    p.id = id;
    p.kernel = id;
    p.kind = "reduction";
    p.launch = [f = std::move(f)](const course::launch_args& a) { f(a.in, a.out, a.n, a.scratch); };
    return p;
}

// One launch of a reduction part of 4 elements.
void reduce4(const course::part& p, float* in, float* out) {
    course::launch_args a;
    a.in = in;
    a.out = out;
    a.n = 4;
    p.launch(a);
}

}  // namespace

// In a child process of the test's own: one executor per process, and the next case's
// is this process's. The child's exit code says which expectation failed.
TEST_CASE("executor: stopped at the end of the job, it is waited for and its CPU time counted") {
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) try {
        course::lab_parts student = {reduction_part("busy", [](const float*, float* out, std::size_t, float*) {
            volatile double x = 0;  // a few milliseconds of CPU in the executor
            for (int i = 0; i < 20000000; ++i) x = x + 1e-9;
            out[0] = static_cast<float>(x);
        })};
        course::lab_parts reference, baseline;
        std::string note;
        course::start_kernel_executor(student, reference, baseline, note);
        float* in = nullptr;
        float* out = nullptr;
        if (cudaMalloc(&in, 4 * sizeof(float)) != cudaSuccess || cudaMalloc(&out, sizeof(float)) != cudaSuccess) _exit(10);
        reduce4(student[0], in, out);
        if (::waitpid(-1, nullptr, WNOHANG) != 0) _exit(11);  // running, not yet waited for
        course::stop_kernel_executor();
        if (course::executor_running()) _exit(12);
        errno = 0;
        if (::waitpid(-1, nullptr, WNOHANG) != -1 || errno != ECHILD) _exit(13);  // none left to wait for
        rusage children{};
        ::getrusage(RUSAGE_CHILDREN, &children);
        if (children.ru_utime.tv_sec == 0 && children.ru_utime.tv_usec < 5000) _exit(14);
        try {
            reduce4(student[0], in, out);
            _exit(15);
        } catch (const course::executor_lost&) {
        }
        _exit(0);
    } catch (...) {
        _exit(20);  // never back into doctest from the child
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("executor: launches run apart, errors come back, a forbidden system call ends it") {
    course::lab_parts student = {
        // The sum of the input into out[0], written where the harness reads it back.
        reduction_part("sum", [](const float* in, float* out, std::size_t n, float*) {
            float s = 0;
            for (std::size_t i = 0; i < n; ++i) s += in[i];
            out[0] = s;
        }),
        reduction_part("fault", [](const float*, float*, std::size_t, float*) {
            throw emu::kernel_error("kernel 'fault': out-of-bounds write");
        }),
        reduction_part("contract", [](const float*, float*, std::size_t, float*) {
            throw course::contract_error("kShuffleBlockSize is 100");
        }),
        // What a kernel that escaped every check would try: open a file.
        reduction_part("escape", [](const float*, float*, std::size_t, float*) {
            (void)syscall(SYS_openat, AT_FDCWD, "/etc/hostname", O_RDONLY);
        }),
    };
    course::lab_parts reference, baseline;
    std::string note;
    course::start_kernel_executor(student, reference, baseline, note);
    CHECK(note == "Kernels run in a process of their own under a system-call filter (seccomp).");
    REQUIRE(course::executor_running());

    float* in = nullptr;
    float* out = nullptr;
    REQUIRE(cudaMalloc(&in, 4 * sizeof(float)) == cudaSuccess);
    REQUIRE(cudaMalloc(&out, sizeof(float)) == cudaSuccess);
    const float values[4] = {1.5f, 2.0f, 3.0f, 4.0f};
    REQUIRE(cudaMemcpy(in, values, sizeof values, cudaMemcpyHostToDevice) == cudaSuccess);
    reduce4(student[0], in, out);
    float got = 0;
    REQUIRE(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(got == 10.5f);

    CHECK_THROWS_WITH_AS(reduce4(student[1], in, out), "kernel 'fault': out-of-bounds write", emu::kernel_error);
    CHECK_THROWS_WITH_AS(reduce4(student[2], in, out), "kShuffleBlockSize is 100", course::contract_error);
    CHECK_THROWS_WITH_AS(reduce4(student[3], in, out),
                         "the process that runs the kernels was stopped for a system call that kernel code may not "
                         "make (it may touch only its own memory)",
                         course::executor_lost);
    CHECK_FALSE(course::executor_running());
    // Nothing more runs there, and the harness says so every time.
    CHECK_THROWS_AS(reduce4(student[0], in, out), course::executor_lost);
}
