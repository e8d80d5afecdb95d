#pragma once
// Parsers for the output of the CUDA tools the technique checks run. Pure functions on
// text, so that the unit tests can feed them literal tool output. Defined by tool (files
// tool_output_libraries.cpp, tool_output_sass.cpp, tool_output_profilers.cpp).
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/policy.hpp"

namespace course {

// Uses of the libraries in `rules` (the policy's forbidden_libraries): #include lines and
// code of the source, with comments and string literals blanked out for the code, and
// symbols in `nm -C` output. Each finding is one readable line that names the library.
std::vector<std::string> forbidden_library_uses(const std::string& source, const std::string& nm_output,
                                                const std::vector<library_rule>& rules);

// The source with the text of every comment and string or character literal replaced by
// spaces (line breaks kept, so line numbers stay): a library named in a comment is no use.
std::string blank_comments_and_strings(const std::string& source);

// The functions of `cuobjdump -sass` output ("Function : <mangled name>" sections). In an
// object compiled whole (no -rdc) a kernel's section holds the code of every device
// function it calls that was not inlined: `CALL.REL.NOINC 0x150` jumps inside the section.
// With -rdc a device function has its own section and a call reads `CALL.ABS.NOINC 0x0`:
// its target is a relocation, listed by `cuobjdump -elf` (add_relocated_calls). Older
// tools print the target by name, `CALL.ABS.NOINC `(_Z8warp_sumf)`, which is read here.
struct sass_function {
    std::vector<std::string> instructions;
    std::set<std::string> callees;
    bool calls_elsewhere = false;  // a CALL.ABS whose target only the relocations tell
};
using sass_program = std::map<std::string, sass_function>;
sass_program parse_sass(const std::string& sass);

// Adds the calls that the relocation sections of `cuobjdump -elf` output show
// (".section .rela.text.<caller>", one "<offset> <symbol> <type> <addend>" line each) for
// symbols that are functions of `program`.
void add_relocated_calls(sass_program& program, const std::string& elf_dump);

// The mangled-name prefix of a function `name` in namespace `ns`:
// ("lab4_student", "reduce_shuffle") -> "_ZN12lab4_student14reduce_shuffle".
std::string mangled_prefix(const std::string& ns, const std::string& name);

// The functions whose mangled name is `prefix` followed by their parameters or template
// arguments (the graded kernel and its template instances), and every function they
// call, directly or not.
std::set<std::string> reachable_functions(const sass_program& program, const std::string& prefix);

// A mangled name made readable ("_ZN12lab4_student12extra_kernelEPKfPfj" ->
// "lab4_student::extra_kernel(float const*, float*, unsigned int)"); the name itself when
// it is not a mangled C++ name.
std::string demangle(const std::string& name);

enum class sass_search { found, not_found, no_such_function };

// Looks for `opcode` (e.g. "SHFL") in the functions reachable from the kernel `prefix`.
// Code of other functions, an extra kernel the course never launches among them, does not
// count. `elsewhere` receives the unreachable functions that hold it.
sass_search find_in_sass(const sass_program& program, const std::string& prefix, const std::string& opcode,
                         std::vector<std::string>* elsewhere = nullptr);

// compute-sanitizer racecheck output, in either report mode, split by kernel. A report
// starts at a line holding "hazard detected" (--racecheck-report hazard: one hazard each)
// or "Race reported" (analysis: "[N hazards]" on its lines); the indented lines after it
// belong to it. A report counts for each name of `kernels` it mentions (demangled and
// qualified, "lab3_student::reduce_warp_unrolled"); one that names none is unattributed.
struct kernel_hazards {
    int reports = 0;
    long long hazards = 0;
    std::string first;  // the first report's first line
};
struct racecheck_result {
    bool parsed = false;  // the RACECHECK SUMMARY line was found
    int displayed = 0;    // reports displayed, from the summary: the print limit caps it
    long long found = 0;  // hazards found, displayed or not (the summary's errors + warnings)
    std::map<std::string, kernel_hazards> by_kernel;
    int unattributed = 0;
    std::string first_unattributed;
};
racecheck_result parse_racecheck(const std::string& output, const std::vector<std::string>& kernels);

struct sanitizer_summary {
    bool parsed = false;  // a summary line was found
    int errors = 0;       // memcheck errors, or racecheck errors
    int warnings = 0;     // racecheck "warnings": potential hazards, counted as findings
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
