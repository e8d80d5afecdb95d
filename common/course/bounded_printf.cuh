#pragma once
// The GPU build of a lab file includes this first (cmake/lab_kernels.in): its kernels'
// printf goes through course_bounded_printf, which prints the first
// course::printf_bound::gpu_calls calls of the worker process, one line that says the
// output was cut, and nothing after. The grade then never waits on a kernel's output.
// A file that #undefs printf prints unbounded and may time out: it hurts only itself.
#include <cstdio>

#include "course/printf_bound.hpp"

namespace {
// One per lab object: the student's kernels count their own calls.
__device__ unsigned long long course_printf_calls = 0;
}  // namespace

template <typename... Args>
__host__ __device__ __forceinline__ int course_bounded_printf(const char* format, Args... args) {
#if defined(__CUDA_ARCH__)
    constexpr unsigned long long limit = course::printf_bound::gpu_calls;
    // A read first: past the bound every thread would otherwise contend for one atomic.
    if (*static_cast<volatile unsigned long long*>(&course_printf_calls) > limit) return 0;
    const unsigned long long call = atomicAdd(&course_printf_calls, 1ull);
    if (call < limit) return ::printf(format, args...);
    if (call == limit) ::printf("\n" COURSE_PRINTF_CUT_MARKER "%llu printf calls on the GPU]\n", limit);
    return 0;
#else
    return ::printf(format, args...);
#endif
}

namespace std {
using ::course_bounded_printf;
}  // namespace std

#define printf course_bounded_printf
