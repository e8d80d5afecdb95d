#pragma once
// Lab 1 binding: how the course launches the lab file's kernel. Compiled once per role
// with LAB_IMPL naming the role's namespace.
#include "bindings/reduction_part.cuh"

namespace LAB_IMPL {

course::lab_parts parts() {
    return {course::make_reduction_part("A", "interleaved addressing, divergent branch", "reduce_divergent",
                                        reduce_divergent, {lab1::block_size, 1, 0})};
}

}  // namespace LAB_IMPL
