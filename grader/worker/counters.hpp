#pragma once
#include "core/protocol.hpp"
#include "worker/part.hpp"

namespace course {

// The CPU emulator only: runs each version of a part (the student's, the reference's and
// the naive baseline's) once on one input, traced, and returns what the emulator counted
// for each: shared and global memory requests, bank-conflict wavefronts, sectors, partial
// warps, barriers, shuffles, and the hazards it found (races, reads of unwritten shared
// memory). The supervisor's technique checks compare the student's with the others'.
// The student's traced run is checked like a correctness case: a wrong result sets `error`.
counters_event count_versions(const part* const versions[3], const counters_request& request, std::uint64_t seed,
                              double tolerance_c);

}  // namespace course
