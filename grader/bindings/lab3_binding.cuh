#pragma once
// Lab 3 binding: every block covers two elements per thread. Part ids, titles and kernel
// names: labs.json.
#include "bindings/reduction_part.cuh"
#include "manifest/lab3_parts.hpp"

namespace LAB_IMPL {

namespace names = course::manifest::lab3;
COURSE_MANIFEST_KERNEL(names::A, reduce_first_add);
COURSE_MANIFEST_KERNEL(names::B, reduce_warp_unrolled);
COURSE_MANIFEST_KERNEL(names::C, reduce_full_unroll);

course::lab_parts parts() {
    const course::reduction_shape shape{lab3::block_size, 2, 0};
    // Wrong sums everywhere in B or C, small inputs too, are nearly always the warp-level
    // tail; the barrier before it is the next suspect (when only inputs larger than one
    // warp fail, the generic hints name that barrier first).
    const char* tail_hint =
        "Look at the last warp's steps. Since Volta the lanes of a warp do not run in lockstep: between reading "
        "a neighbour's partial sum and writing your own you need __syncwarp() (a volatile pointer is not "
        "enough), or use warp shuffles. The CPU emulator makes such a race wrong every time. If the tail is "
        "right, check the __syncthreads() after the last block-level step: the tail must not start before "
        "every warp has written its partial sum.";
    auto b = course::make_reduction_part(names::B, reduce_warp_unrolled, shape);
    auto c = course::make_reduction_part(names::C, reduce_full_unroll<lab3::block_size>, shape);
    b.hint = c.hint = tail_hint;
    return course::manifest::all_parts<names::part_count>(
        course::make_reduction_part(names::A, reduce_first_add, shape), b, c);
}

}  // namespace LAB_IMPL
