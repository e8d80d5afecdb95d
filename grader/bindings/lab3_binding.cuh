#pragma once
// Lab 3 binding: every block covers two elements per thread.
#include "bindings/reduction_part.cuh"

namespace LAB_IMPL {

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
    auto b = course::make_reduction_part("B", "last warp unrolled", "reduce_warp_unrolled", reduce_warp_unrolled,
                                         shape);
    auto c = course::make_reduction_part("C", "fully unrolled, compile-time block size", "reduce_full_unroll",
                                         reduce_full_unroll<lab3::block_size>, shape);
    b.hint = c.hint = tail_hint;
    return {course::make_reduction_part("A", "first add during the load", "reduce_first_add", reduce_first_add,
                                        shape),
            b, c};
}

}  // namespace LAB_IMPL
