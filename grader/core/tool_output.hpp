#pragma once
// Parsers for the output of the CUDA tools the technique checks run. Pure functions on
// text, so that the unit tests can feed them literal tool output.
#include <map>
#include <string>
#include <vector>

namespace course {

// Uses of libraries a student must not call (CUB, Thrust, cuBLAS, ...): #include lines in
// the source, and symbols in `nm -C` output. Each finding is one readable line.
std::vector<std::string> forbidden_library_uses(const std::string& source, const std::string& nm_output);

enum class sass_search { found, not_found, no_such_function };

// Looks in `cuobjdump -sass` output for `opcode` (e.g. "SHFL") in the code of the kernel
// whose (mangled) name contains `kernel`, or in a device function it may call.
// `other_kernels` names the lab's other kernels, whose code does not count.
sass_search find_in_sass(const std::string& sass, const std::string& kernel, const std::string& opcode,
                         const std::vector<std::string>& other_kernels);

struct sanitizer_summary {
    bool parsed = false;  // a summary line was found
    int errors = 0;       // memcheck errors, or racecheck errors
    int warnings = 0;     // racecheck "warnings": potential hazards; facts.md says count them
    std::vector<std::string> findings;  // the first few reports, one line each
    int total() const { return errors + warnings; }
};
sanitizer_summary parse_sanitizer(const std::string& output);

// Nsight Compute `--csv` output: the value of each metric summed over every profiled
// kernel launch (a multi-pass reduction launches several). `error` is set, and the map
// empty, when ncu could not profile (no permission for the counters, no kernel, ...).
struct ncu_metrics {
    std::map<std::string, double> sums;
    int launches = 0;
    std::string error;
};
ncu_metrics parse_ncu_csv(const std::string& output);

// Wavefronts per shared-memory request, counting only requests that reached shared
// memory, relative to the minimum for their access width: 1.0 is conflict-free, 8.0 an
// 8-way conflict. Nsight Compute's instruction counters also count shared loads executed
// with every lane predicated off (the `if (t < stride)` of a tree), which dilute a plain
// wavefronts / instructions ratio to near or below 1 even for an 8-way conflict. Its
// bank-conflict counter is the excess over the minimum, so wavefronts - conflicts is the
// minimum: one per active 4-byte request, two per 8-byte, four per 16-byte. 0 when no
// shared memory was used.
double shared_conflict_factor(double wavefronts, double conflicts);

}  // namespace course
