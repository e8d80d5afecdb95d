#pragma once
// Lab 2 binding: how the course launches the lab file's kernels. Part ids, titles,
// kernel names and hints: lab.json.
#include "bindings/reduction_part.cuh"

namespace LAB_IMPL {

COURSE_MANIFEST_KERNEL(names::A, reduce_strided);
COURSE_MANIFEST_KERNEL(names::B, reduce_sequential);

course::lab_parts parts() {
    const course::reduction_shape shape{lab2::block_size, 1, 0};
    return course::manifest::all_parts<names::part_count>(
        course::make_reduction_part(names::A, reduce_strided, shape),
        course::make_reduction_part(names::B, reduce_sequential, shape));
}

}  // namespace LAB_IMPL
