#pragma once
// Reduction inputs made where the kernels read them. A GPU worker's correctness cases and
// timed problems make each input on the device, in the case's own buffer, with its exact
// sums, instead of making it on the host, summing it there and uploading it: four input
// kinds at thirteen sizes up to 2^25 floats for lab 3's cases, the host's CPU that graders
// sharing it ran short of (docs/instructor-guide.md, "Inputs made on the GPU").
#include <cstddef>
#include <cstdint>

#include "inputs/inputs.hpp"
#include "inputs/perturbation.hpp"

namespace course {

// Writes the input of (kind, seed), n records of `width` floats (what make_input(kind,
// seed, n * width) makes on the host, bit for bit), to the device memory `out`, and returns
// its exact sums (sum_components' figures, within double rounding; exact for integer
// kinds). Waits for the device.
component_sums make_input_on_device(input_kind kind, std::uint64_t seed, float* out, std::size_t n, unsigned width);

// The two ways of doing it, which make_input_on_device picks by backend. By one kernel
// (worker/input_maker.cu), the GPU's; a record width it does not take (over 32 floats) is
// uploaded instead:
component_sums make_input_by_kernel(input_kind kind, std::uint64_t seed, float* out, std::size_t n, unsigned width);
// Made on the host and uploaded: the CPU emulator's way, since its device memory is host
// memory and its kernels are slow.
component_sums upload_input(input_kind kind, std::uint64_t seed, float* out, std::size_t n, unsigned width);

// Whether a worker of this backend makes its correctness inputs that way. The CPU emulator
// does not: its device memory is the host's, and its cases copy from the worker's input
// cache, made once for every part.
#if defined(COURSE_EMULATE)
inline constexpr bool inputs_made_on_device = false;
#else
inline constexpr bool inputs_made_on_device = true;
#endif

}  // namespace course
