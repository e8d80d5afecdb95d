#pragma once
#include "course/cuda_check.hpp"

namespace course {

// Throws a cuda_error that names the kernel and its launch configuration.
[[noreturn]] void throw_launch_error(cudaError_t code, const char* kernel, dim3 grid, dim3 block);

}  // namespace course
