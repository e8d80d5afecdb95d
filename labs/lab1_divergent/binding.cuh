#pragma once
// Lab 1 binding: how the course launches the lab file's kernel. Compiled once per role
// with LAB_IMPL naming the role's namespace. Part ids, titles, kernel names and hints: lab.json.
#include "bindings/reduction_part.cuh"

namespace LAB_IMPL {

COURSE_MANIFEST_KERNEL(names::A, reduce_divergent);

course::lab_parts parts() {
    return course::manifest::all_parts<names::part_count>(
        course::make_reduction_part(names::A, reduce_divergent, {lab1::block_size, 1, 0}));
}

}  // namespace LAB_IMPL
