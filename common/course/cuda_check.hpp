#pragma once
#include <stdexcept>
#include <string>

#include "course/cuda_compat.hpp"

namespace course {

// Thrown for every failed CUDA runtime call. The grader catches it, records the
// failure for the test that was running and goes on; nothing in library code exits.
class cuda_error : public std::runtime_error {
public:
    cuda_error(cudaError_t code, const std::string& what);
    cudaError_t code() const noexcept { return code_; }
    // A sticky error (an illegal address, a trap, a launch timeout) poisons the whole
    // CUDA context: every later call in this process fails the same way.
    bool sticky() const noexcept;

private:
    cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line);

}  // namespace course

#define CUDA_CHECK(expr)                                                        \
    do {                                                                        \
        const cudaError_t course_cuda_status_ = (expr);                         \
        if (course_cuda_status_ != cudaSuccess)                                 \
            ::course::throw_cuda_error(course_cuda_status_, #expr, __FILE__, __LINE__); \
    } while (0)
