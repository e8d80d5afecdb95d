#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "core/protocol.hpp"
#include "worker/part.hpp"

namespace course {

// The CPU emulator only. Every correctness case of the student's version runs traced; after
// each, the tracer reads what its launches did and clears it: the shared-memory hazards of
// every launch, the shuffles the part's kernel executed, and, for the problems drawn for
// this grade (counters_request), the student's counters there.
class case_tracer {
public:
    case_tracer(const part& student, const counters_request& drawn);
    // Before a case of `input` and `size` ("n=4097", "257x129") runs: requests are counted
    // only in the drawn problems' cases (hazards in every case).
    void before_case(const std::string& input, const std::string& size);
    // After it has run, whatever its end.
    void after_case(const std::string& input, const std::string& size);

    hazard_findings hazards;
    std::uint64_t warp_shuffles = 0;  // by the part's kernel, in every case
    std::map<std::string, version_counters> student;  // by size words, the drawn problems only

private:
    const part& part_;
    counters_request drawn_;
};

// Runs the baseline's and the reference's versions of a part once on each problem the
// tracer holds the student's counters for, traced, and returns all three versions'
// counters per problem (baseline, reference, student), with the hazards of every case;
// with drawn.student_only, the student's alone (the supervisor has the others).
counters_event count_versions(const part* const versions[3], const counters_request& drawn,
                              const case_tracer& traced, std::uint64_t seed, double tolerance_c);

// The baseline's and the reference's counters on every problem of `problems` of the part's
// kind (baseline, reference per problem), as count_versions counts them; the student's
// version only sizes the buffers and never runs.
counters_event count_references(const part* const versions[3], const counters_request& problems, std::uint64_t seed,
                                double tolerance_c);

}  // namespace course
