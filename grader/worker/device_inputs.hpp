#pragma once
#include <map>

#include "course/device_buffer.hpp"
#include "inputs/host_floats.hpp"

namespace course {

// Device copies of the worker's correctness inputs (input_cache), each uploaded once.
// Every part of a lab draws the same inputs, and a case that uploads its own from pageable
// host memory makes the device wait for the copy: with several graders on one GPU, whose
// contexts take turns, those uploads were most of a worker's GPU time (the instructor
// guide, "Where the time goes now"). A case then copies its input on the device instead,
// into buffers of its own as before, so a kernel still sees only its case's input and
// guard words. The copies live as long as this object: one correctness phase.
class device_inputs {
public:
    // keep = false: find() keeps nothing and the cases upload as before (the CPU emulator,
    // where a copy is a memcpy either way and every launch sends the process that runs the
    // kernels the table of allocations, which the copies would lengthen).
    explicit device_inputs(bool keep) : keep_(keep) {}
    device_inputs(const device_inputs&) = delete;
    device_inputs& operator=(const device_inputs&) = delete;

    // The device copy of `values` (an input_cache entry, never written: its address names
    // it), uploaded on first use; nullptr when copies are not kept, or once the device had
    // no room for one (the cases upload their own from then on, as they did before).
    const float* find(const host_floats& values);
    bool keeps() const { return keep_; }

private:
    bool keep_;
    std::map<const float*, device_buffer<float>> copies_;
};

// Whether a worker of this backend keeps device copies (see device_inputs(bool)).
#if defined(COURSE_EMULATE)
inline constexpr bool keep_inputs_on_device = false;
#else
inline constexpr bool keep_inputs_on_device = true;
#endif

}  // namespace course
