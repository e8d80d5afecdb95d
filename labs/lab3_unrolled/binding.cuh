#pragma once
// Lab 3 binding: every block covers two elements per thread. Part ids, titles, kernel
// names and hints: lab.json.
#include "bindings/reduction_part.cuh"

namespace LAB_IMPL {

COURSE_MANIFEST_KERNEL(names::A, reduce_first_add);
COURSE_MANIFEST_KERNEL(names::B, reduce_warp_unrolled);
COURSE_MANIFEST_KERNEL(names::C, reduce_full_unroll);

course::lab_parts parts() {
    const course::reduction_shape shape{lab3::block_size, 2, 0};
    return course::manifest::all_parts<names::part_count>(
        course::make_reduction_part(names::A, reduce_first_add, shape),
        course::make_reduction_part(names::B, reduce_warp_unrolled, shape),
        course::make_reduction_part(names::C, reduce_full_unroll<lab3::block_size>, shape));
}

}  // namespace LAB_IMPL
