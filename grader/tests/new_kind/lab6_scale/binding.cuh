#pragma once
// Lab 6 binding: one launch of ceil(n / 256) blocks. A part of the "scale" problem kind.
#include "bindings/manifest_part.hpp"
#include "course/launch.hpp"

namespace LAB_IMPL {

COURSE_MANIFEST_KERNEL(names::A, scale);

course::lab_parts parts() {
    course::part a = course::manifest::named_part(names::A);
    a.kind = "scale";
    a.launch = [](const course::launch_args& s) {
        if (s.n == 0) return;
        const unsigned blocks = static_cast<unsigned>((s.n + lab6::block_size - 1) / lab6::block_size);
        course::launch(names::A.kernel, scale, dim3(blocks), dim3(lab6::block_size), s.in, s.out,
                       static_cast<unsigned>(s.n));
    };
    return course::manifest::all_parts<names::part_count>(a);
}

}  // namespace LAB_IMPL
