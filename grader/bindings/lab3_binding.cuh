#pragma once
// Lab 3 binding: every block covers two elements per thread.
#include "bindings/reduction_part.cuh"

namespace LAB_IMPL {

course::lab_parts parts() {
    const course::reduction_shape shape{lab3::block_size, 2, 0};
    return {course::make_reduction_part("A", "first add during the load", "reduce_first_add", reduce_first_add,
                                        shape),
            course::make_reduction_part("B", "last warp unrolled", "reduce_warp_unrolled", reduce_warp_unrolled,
                                        shape),
            course::make_reduction_part("C", "fully unrolled, compile-time block size", "reduce_full_unroll",
                                        reduce_full_unroll<lab3::block_size>, shape)};
}

}  // namespace LAB_IMPL
