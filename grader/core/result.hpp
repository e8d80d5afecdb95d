#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/scoring.hpp"

namespace course {

// One correctness case as the worker reported it.
struct case_record {
    std::string part;
    std::string input;  // input kind, e.g. "ones"
    std::string size;   // "n=257" or "31x33"
    std::uint64_t n = 0;  // element count (rows*cols for matrices)
    bool ok = false;
    bool fault = false;      // the run threw: a CUDA error, an emulator diagnosis, a crash
    bool timed_out = false;  // the emulator's watchdog stopped it (on a GPU it would hang)
    bool untouched = false;  // the output still held the poison pattern
    bool guard_hit = false;  // a guard word past the end of an output was overwritten
    double expected = 0;
    double got = 0;
    double tolerance = 0;
    std::string detail;  // what went wrong, in words
};

enum class correctness_status { passed, failed, crashed, timed_out, not_run };
std::string to_string(correctness_status s);

struct correctness_result {
    correctness_status status = correctness_status::not_run;
    int cases = 0;
    int failed = 0;
    int faults = 0;  // cases where the kernel crashed or was diagnosed rather than just wrong
    std::vector<case_record> failures;  // the first failure of each input kind
    std::string hint;
    std::string message;  // crash or timeout details
    // Largest |got - expected| / tolerance over the cases that have a tolerance: how much
    // of the rounding allowance the kernel used (docs/grading.md uses it to justify c).
    double worst_error_ratio = 0;
    // CPU emulator: the warp shuffles the part's kernel executed in these cases (the
    // uses_shuffle check reads it); empty on a GPU.
    std::optional<std::uint64_t> warp_shuffles;
};

enum class timing_status { measured, not_measured, failed };
std::string to_string(timing_status s);

struct kernel_time {
    std::string role;    // naive, reference, student
    std::string kernel;  // kernel name
    double median_ms = 0;
    double gbps = 0;
    double pct_of_copy = 0;  // percent of the measured device-to-device copy bandwidth
};

struct timing_result {
    timing_status status = timing_status::not_measured;
    std::string reason;  // why not measured, or what failed
    std::string problem;  // e.g. "n=33554432"
    std::vector<kernel_time> kernels;
    double speedup = 0;  // t_naive / t_student (median of per-round ratios)
    double speedup_lo = 0;
    double speedup_hi = 0;
    double reference_speedup = 0;
    double target = 0;
    double credit = 0;
    perf_verdict verdict = perf_verdict::inconclusive;
    int rounds = 0;
    double reference_cv = 0;  // coefficient of variation of the reference's per-round speedup
    bool implausible = false;
    double copy_gbps = 0;
    double peak_gbps = 0;
    std::string recheck;  // empty when the post-timing re-check passed
    // The worker whose run measured it first: "correctness" (the correctness cases' own,
    // policy timing.same_worker) or "timing" (one started to time); "" when not measured.
    std::string worker;
};

// info: measured and reported, not graded (e.g. counters shown with --profile).
enum class check_status { passed, failed, skipped, info };
std::string to_string(check_status s);

struct check_result {
    std::string name;
    check_status status = check_status::skipped;
    std::string detail;
};

// One load, store or atomic instruction of the student's kernel, as the emulator counted
// it (emu::instruction_counters); `place` is its line in the lab file once the supervisor
// has read it (it arrives as " [at exe+0x...]").
struct instruction_row {
    std::string place;
    bool shared = false;
    std::string op;  // load, store, atomic
    unsigned width = 0;
    std::uint64_t requests = 0, cost = 0, ideal = 0, excess_warps = 0, lanes = 0;
    // Its costliest request, for the HTML report's pictures: what it cost, and per lane the
    // byte offset from the 128-byte line below the lowest lane's address (-1: no part).
    std::uint64_t sample_cost = 0;
    std::vector<std::int64_t> sample_offsets;
    // Block (0,0,0) of its first launch: [step (barriers before), warp, lanes] per request.
    std::vector<std::array<std::uint32_t, 3>> steps;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(instruction_row, place, shared, op, width, requests, cost, ideal,
                                                excess_warps, lanes, sample_cost, sample_offsets, steps)

// What the emulator counted when one version of a part ran one problem, traced
// (common/emu/emu_stats.hpp says what each number is). `elements`: the problem's input
// floats (matrix elements, records times their floats), what the checks divide by.
struct version_counters {
    std::string version;  // student, reference, baseline
    std::string kernel;
    std::string problem;  // "n=65536", "257x129", ...
    std::uint64_t elements = 0;
    std::uint64_t launches = 0, warp_shuffles = 0, barriers = 0;
    std::uint64_t shared_load_requests = 0, shared_load_wavefronts = 0;
    std::uint64_t shared_store_requests = 0, shared_store_wavefronts = 0;
    std::uint64_t shared_atomic_requests = 0, shared_atomic_wavefronts = 0, shared_ideal_wavefronts = 0;
    std::uint64_t global_load_requests = 0, global_load_sectors = 0;
    std::uint64_t global_store_requests = 0, global_store_sectors = 0, global_atomic_requests = 0;
    std::uint64_t request_lanes = 0, partial_requests = 0, excess_warp_requests = 0;
    std::uint64_t shared_epochs = 0, warps = 0;
    std::vector<instruction_row> instructions;  // places: the student's only
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(version_counters, version, kernel, problem, elements, launches, warp_shuffles,
                                   barriers, shared_load_requests, shared_load_wavefronts, shared_store_requests,
                                   shared_store_wavefronts, shared_atomic_requests, shared_atomic_wavefronts,
                                   shared_ideal_wavefronts, global_load_requests, global_load_sectors,
                                   global_store_requests, global_store_sectors, global_atomic_requests, request_lanes,
                                   partial_requests, excess_warp_requests, shared_epochs, warps, instructions)

// The shared-memory hazards the emulator found in every launch of a part's correctness
// cases (the first few, in words, and how many distinct ones in all).
struct hazard_findings {
    std::vector<std::string> races, uninitialized;
    std::uint64_t count = 0;
    int cases = 0;  // the traced cases they were looked for in
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(hazard_findings, races, uninitialized, count, cases)

struct part_result {
    std::string id;
    std::string title;
    std::string kernel;
    correctness_result correctness;
    timing_result timing;
    std::vector<check_result> checks;
    double correctness_points = 0;
    double performance_points = 0;
    double correctness_max = 0;
    double performance_max = 0;  // 0 when performance is not graded (CPU backend, "omit")
    // What failed technique checks cost the part (the rule is in scoring.hpp), and the
    // check that decided it with its message, for the reports.
    check_penalty penalty = check_penalty::none;
    std::string penalty_reason;
    // The CPU emulator's counters of the part's versions (baseline, reference, student) on
    // each problem drawn for this grade (`counters_problems`), which its technique checks
    // read, and the hazards of all its cases; empty on a GPU.
    std::vector<version_counters> counters;
    std::string counters_problems;
    hazard_findings hazards;
    std::string shuffles_perturbed;  // counters_event's word
    std::string counters_error;      // why there are none
    // GPU grading only: how the part's cases went on the CPU emulator, whose counters the
    // technique checks read there too: "passed", the first failure in words, or "" (the
    // build has no emulated worker).
    std::string emulator_verdict;
    // GPU grading only: the emulator's hint where its cases failed (none crashed or hung);
    // apply_race_hints gives it where the emulator also found a race. Not in the reports.
    std::string emulator_hint;
    // The rung of the ladder the student's counters behave like (core/ladder.hpp), for a
    // correct part with counters; "" otherwise. Never decides a point.
    std::string ladder;
    double score() const { return correctness_points + performance_points; }
    double max_points() const { return correctness_max + performance_max; }
};

// The student's file that was graded, as every report names it (docs/grading.md).
struct graded_source {
    std::string path;    // relative to the course root when inside it, else as the build knows it
    std::string sha256;  // of its bytes when graded; "" when it could not be read
};

// Set when the student's file did not build, so nothing was graded: ./grade builds the
// lab first and never grades an older build (docs/grading.md, "Never a stale grade").
struct build_failure {
    std::string kind;  // "compile_error", "rejected" (by course_cc_guard) or "link_error"; "" = built
    std::string log;   // the compiler's or the guard's messages about the file
};

struct lab_result {
    std::string lab;
    graded_source source;
    build_failure build;
    std::string backend;  // "gpu" or "emulated"
    std::string device;
    std::uint64_t seed = 0;
    std::string started_at;  // ISO 8601, UTC
    std::vector<part_result> parts;
    std::vector<check_result> checks;  // checks of the whole file (no_libraries)
    std::vector<std::string> notes;
    std::string infrastructure_error;  // set when grading could not be done at all
    double score = 0;
    double max_score = 0;
    bool passed = false;
    int exit_code = 2;
    std::string summary;  // the one-line verdict
    // What happened to the submission as a whole (core/lab_scoring.hpp, outcome_of): the
    // gradebook's status, read as is by batch grading.
    std::string outcome;
    // Where the grading's time went, in seconds (wall clock): "start" (choosing and asking
    // the worker), "correctness", "racecheck" (what was left of it after the correctness cases,
    // beside which it runs), "emulator_wait" and "timing" (GPU), "checks", "total"; with
    // a GPU, "emulator" (the emulator's run for the technique checks, beside correctness),
    // "gpu_alone" (held alone for timed or profiled runs), "gpu_shared" (held shared for
    // correctness cases and racecheck, from each worker's "go"; "racecheck_shared" is
    // racecheck's share), "timing_ready" and "racecheck_ready" (those workers' start, to
    // their ready event; racecheck's under compute-sanitizer)
    // and with a shared GPU lock, "gpu_wait" (waiting for it); on both backends,
    // "correctness_ready" (the correctness workers' start: process, sandbox, context and
    // inputs, to their ready event). For instructors sizing a batch.
    std::map<std::string, double> seconds;
    // Where the reference's and baseline's counters came from, when the emulator counted
    // (grader --reference-counters): "class" (the batch's file), "counted: <why the file was
    // not read>", or "" (no file given, or no counters).
    std::string reference_counters;
    // Where the lab's parts and device came from, when a description was given (grader
    // --described): "class" (the batch's file), "asked: <why the file was not read>" (the
    // worker was asked, as with no file), or "" (no file given).
    std::string described;
};

// `file` as the reports show it: relative to `course_root` when it lies inside it (both
// absolute paths; no file system access), else unchanged. An empty root changes nothing.
std::string shown_source_path(const std::string& file, const std::string& course_root);

// Whether a shown path is a student's own file, labs/<folder>/kernels.cu: only those runs
// count as the student's progress.
bool is_student_lab_file(const std::string& shown);

// The note a report adds when ./grade graded another file than the student's own, e.g.
// after `make lab3 LAB_SOURCE=solutions`; "" for labs/<folder>/kernels.cu or an empty path.
std::string graded_source_note(const std::string& shown);

void to_json(nlohmann::json& j, const case_record& r);
void from_json(const nlohmann::json& j, case_record& r);
void to_json(nlohmann::json& j, const correctness_result& r);
void to_json(nlohmann::json& j, const kernel_time& r);
void to_json(nlohmann::json& j, const timing_result& r);
void to_json(nlohmann::json& j, const check_result& r);
void to_json(nlohmann::json& j, const part_result& r);
void to_json(nlohmann::json& j, const lab_result& r);

}  // namespace course
