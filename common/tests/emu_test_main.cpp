// doctest main for tests that run kernels. The GPU build exits 77 (ctest: skipped) on a
// machine without a GPU, so such a run never counts as passed.
#define DOCTEST_CONFIG_IMPLEMENT
#define DOCTEST_CONFIG_NO_POSIX_SIGNALS  // the emulator owns SIGSEGV and SIGALRM
#include <doctest/doctest.h>

#include <cstdio>

#include "course/cuda_compat.hpp"

int main(int argc, char** argv) {
#if !defined(COURSE_EMULATE)
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::puts("no CUDA GPU on this machine: skipped");
        return 77;
    }
#endif
    doctest::Context context(argc, argv);
    return context.run();
}
