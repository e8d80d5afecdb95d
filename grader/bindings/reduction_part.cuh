#pragma once
// Builds a graded reduction part from a lab kernel: the kernel does every pass, the
// course does the launching. Include only from lab binding files (.cu).
#include <string>

#include "course/reduction_driver.hpp"
#include "worker/part.hpp"

namespace course {

inline part make_reduction_part(std::string id, std::string title, const char* kernel_name,
                                reduce_kernel kernel, reduction_shape shape) {
    part p;
    p.id = std::move(id);
    p.title = std::move(title);
    p.kernel = kernel_name;
    p.kind = part_kind::reduction;
    p.shape = shape;
    p.reduce = [kernel_name, kernel, shape](const float* in, float* out, std::size_t n, float* scratch) {
        reduce_on_device(kernel_name, kernel, shape, in, out, n, scratch);
    };
    return p;
}

}  // namespace course
