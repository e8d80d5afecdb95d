#pragma once
#include "worker/part.hpp"

namespace course {

// What a lab's worker links: the student's parts, the lab's reference parts, and where
// the naive baseline of each part comes from.
struct lab_config {
    const char* lab = "";
    parts_factory student = nullptr;
    parts_factory reference = nullptr;
    parts_factory baseline = nullptr;
    // true: baseline parts are matched to the lab's parts by id (lab5's unpadded kernels);
    // false: the baseline's first part (the lab1 reference) is the baseline of every part.
    bool baseline_by_id = false;
};

// The worker process: runs the one job it is given (`--job JSON`, core/protocol.hpp) and
// reports through events.
// Exit codes: 0 done (whatever the verdicts), 2 bad arguments or no usable device,
// 3 a sticky CUDA error ended the run early.
int worker_main(int argc, char** argv, const lab_config& config);

}  // namespace course
