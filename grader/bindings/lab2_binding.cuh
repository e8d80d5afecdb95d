#pragma once
// Lab 2 binding: how the course launches the lab file's kernels.
#include "bindings/reduction_part.cuh"

namespace LAB_IMPL {

course::lab_parts parts() {
    const course::reduction_shape shape{lab2::block_size, 1, 0};
    return {course::make_reduction_part("A", "interleaved addressing, strided index", "reduce_strided",
                                        reduce_strided, shape),
            course::make_reduction_part("B", "sequential addressing", "reduce_sequential", reduce_sequential,
                                        shape)};
}

}  // namespace LAB_IMPL
