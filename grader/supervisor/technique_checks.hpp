#pragma once
// Checks that a lab used the technique it teaches, with the CUDA tools. A tool that is
// missing makes its check "skipped" with the reason, never "passed".
#include <cstdint>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace course {

// Finds a program on PATH, then in /usr/local/cuda/bin. "" when absent.
std::string find_tool(const std::string& name);

// The student's file must not call CUB, Thrust, cuBLAS and the like: the #includes of the
// source and, on the GPU build, the symbols of the compiled object.
check_result check_no_libraries(const std::string& source, const std::string& object, bool gpu);

// The kernel's SASS must contain SHFL (lab4): shuffles, not shared memory.
check_result check_uses_shuffle(const std::string& object, const std::string& kernel,
                                const std::vector<std::string>& other_kernels, bool gpu);

// Runs the part's correctness cases under compute-sanitizer memcheck and racecheck
// (--sanitize). Race "warnings" count as findings.
check_result check_sanitize(const std::string& worker, const std::string& part_id, std::uint64_t seed, bool gpu);

// Shared-memory wavefronts per request of the part's kernels, from Nsight Compute's
// counters, for the student's version and the lab's baseline, relative to the minimum
// for the access width (1.0: conflict-free; 8: an 8-way conflict). `graded`: the
// student's loads must need at most `limit`; otherwise the numbers are reported as
// information (--profile).
check_result check_bank_wavefronts(const std::string& worker, const std::string& part_id, double limit, bool graded,
                                   bool gpu);

}  // namespace course
