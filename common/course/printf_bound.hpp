#pragma once
// How much a lab's kernels may print (printf) while they are graded, and the line that
// says where their output was cut. On a GPU the driver drains the printf buffer while the
// kernel runs and the kernel waits for it: on an H200 a printf in every thread got fewer
// than 4,000 lines a second through, so one launch of 2^20 threads would print for minutes.
// Past the bound a kernel's printf prints nothing and costs a counter's read.
#include <cstddef>

// A macro, not a constant: device code builds its format string from it.
#define COURSE_PRINTF_CUT_MARKER "[kernel printf output cut after "

namespace course::printf_bound {

// On a GPU: printf calls per worker process (common/course/bounded_printf.cuh), about
// what the emulator's bytes hold in lines of 30 characters.
inline constexpr unsigned long long gpu_calls = 2048;
// On the CPU emulator: bytes per worker process, its block pool's included
// (common/emu/libc_shims.cpp).
inline constexpr std::size_t emulated_bytes = 64 * 1024;

}  // namespace course::printf_bound
