#pragma once
// Builds a graded reduction part from a lab kernel: the kernel does every pass, the
// course does the launching. Include only from lab binding files (.cu).
#include "bindings/manifest_part.hpp"
#include "course/reduction_driver.hpp"
#include "worker/part.hpp"

namespace course {

// `names`: the part's id, title, kernel name and hint, from the lab's lab.json (manifest/<lab>_parts.hpp).
inline part make_reduction_part(const manifest::part_names& names, reduce_kernel kernel, reduction_shape shape) {
    part p = manifest::named_part(names);
    const char* kernel_name = names.kernel;
    p.kind = "reduction";
    p.shape = shape;
    p.launch = [kernel_name, kernel, shape](const launch_args& a) {
        reduce_on_device(kernel_name, kernel, shape, a.in, a.out, a.n, a.scratch);
    };
    return p;
}

}  // namespace course
