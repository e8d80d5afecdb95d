#pragma once
// Launch code for the reduction labs: include only from .cu files (lab bindings).
#include <cstddef>

#include "course/launch.hpp"
#include "course/reduction_shape.hpp"

namespace course {

using reduce_kernel = void (*)(const float*, float*, unsigned);

// Sums in[0..n) into out[0] on the device by applying `kernel` pass after pass: each
// pass turns m values into grid_for(m) partial sums, until one value is left. All the
// work, the final pass too, is done by the lab's own kernel. With width > 1 each value is
// a record of `width` floats (lab 5's component sums) and out receives one record.
inline void reduce_on_device(const char* name, reduce_kernel kernel, const reduction_shape& shape,
                             const float* in, float* out, std::size_t n, float* scratch, unsigned width = 1) {
    if (n == 0) {
        CUDA_CHECK(cudaMemset(out, 0, sizeof(float) * width));
        return;
    }
    float* regions[2] = {scratch, scratch + shape.second_region(n) * width};
    const float* src = in;
    std::size_t m = n;
    for (int which = 0;; which ^= 1) {
        const std::size_t grid = shape.grid_for(m);
        float* dst = grid == 1 ? out : regions[which];
        launch(name, kernel, dim3(static_cast<unsigned>(grid)), dim3(shape.block), src, dst,
               static_cast<unsigned>(m));
        if (grid == 1) return;
        src = dst;
        m = grid;
    }
}

}  // namespace course
