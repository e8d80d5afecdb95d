#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/problem_size.hpp"
#include "core/result.hpp"

// The messages between the supervisor (the grader) and a lab's worker, the one place
// that names their fields. The supervisor sends one job (`--job JSON`); the worker answers
// with events, one JSON object per line on a descriptor of its own (worker/events.hpp).
// nlohmann-json reads and writes std::optional only from 3.11.3 on; Debian 12 has 3.11.2.
// Absent is null on the wire.
namespace nlohmann {
template <typename T>
struct adl_serializer<std::optional<T>> {
    static void to_json(json& j, const std::optional<T>& value) {
        if (value) {
            j = *value;
        } else {
            j = nullptr;
        }
    }
    static void from_json(const json& j, std::optional<T>& value) {
        if (j.is_null()) {
            value.reset();
        } else {
            value = j.get<T>();
        }
    }
};
}  // namespace nlohmann

// Every field of a job is required: the worker has no defaults of its own, so the policy
// the supervisor read is the only source of every number.
namespace course {

// ---- the job --------------------------------------------------------------------------

// references: the emulator's counters of the reference and the baseline alone, on the
// correctness request's counters problems (a class's cache: supervisor/reference_counters.hpp);
// no student code runs.
enum class worker_command { describe, correctness, timing, profile, references };

// strict: what a worker gets by default. relaxed: for a worker run under ncu or
// compute-sanitizer, whose code injected into the worker needs /tmp, /dev/shm, the tool's
// own files and a connection to the tool. off: nothing (an instructor, debugging).
enum class sandbox_mode { strict, relaxed, off };

// The CPU emulator's counters: every correctness case of the student's version runs
// traced (hazards on every launch); on the problems drawn here, among the cases, the
// reference and the baseline run traced too, for the technique checks to compare.
struct counters_request {
    std::map<std::string, std::vector<problem_size>> problems;  // by problem kind
    // The supervisor has the reference's and the baseline's counters on these problems (a
    // class's cache): the worker counts the student's alone.
    bool student_only = false;
};

// A problem kind's correctness cases: every input kind at each of `sizes`, then one
// random case at each of `large` (sizes too large for every input kind on the emulator,
// there so that a kernel that drops the tail of a large input fails).
struct kind_cases {
    std::vector<problem_size> sizes, large;
};

struct correctness_request {
    std::vector<std::string> parts;  // ids, in order
    std::uint64_t seed = 0;
    double tolerance_c = 0;
    std::vector<std::string> inputs;  // reduction input kinds (inputs/inputs.hpp)
    std::map<std::string, kind_cases> problems;  // by problem kind
    std::optional<counters_request> counters;  // the emulator: after each part's cases
    // Make every input on the host first, then say correctness_ready_event and wait for
    // "go" on stdin before the first case: the supervisor takes the GPU (shared) only then.
    bool wait_for_go = false;
};

struct timing_request {
    std::vector<std::string> parts;
    std::uint64_t seed = 0;
    double tolerance_c = 0;
    std::map<std::string, problem_size> sizes;  // the timed problem, by problem kind
    int rounds = 0;
    int warmup = 0;
    std::uint64_t flush_bytes = 0;
};

// One run of one version of a part, for a profiler (ncu) to watch.
struct profile_request {
    std::string part;
    std::string version;  // student, reference or baseline
    std::uint64_t seed = 0;
    problem_size size;    // the part's kind's "profiled" size in the policy
};

struct worker_job {
    worker_command command = worker_command::describe;
    sandbox_mode sandbox = sandbox_mode::strict;
    std::optional<correctness_request> correctness;  // with worker_command::correctness and references
    // With worker_command::timing; with worker_command::correctness (a GPU's), the parts
    // that pass are timed next by the same worker (correctness_then_timing_job_of).
    std::optional<timing_request> timing;
    std::optional<profile_request> profile;          // with worker_command::profile
};

worker_job describe_job(sandbox_mode sandbox = sandbox_mode::strict);
worker_job correctness_job_of(const correctness_request& request, sandbox_mode sandbox = sandbox_mode::strict);
worker_job timing_job_of(const timing_request& request);
// The correctness cases and then, in the same process and CUDA context, the timing of the
// parts that passed (their ids replace `timing.parts`): a timing_ready_event after the last
// case, then "go" as for a timing job. Policy timing.same_worker.
worker_job correctness_then_timing_job_of(const correctness_request& correctness, const timing_request& timing);
worker_job profile_job_of(const profile_request& request);

// The command line that runs `worker` on `job`, its events on descriptor 3.
std::vector<std::string> worker_argv(const std::string& worker, const worker_job& job);

// ---- the events -----------------------------------------------------------------------

struct device_info {
    std::string name;
    int sms = 0;
    std::size_t l2_bytes = 0;
    std::string compute_capability;
    double peak_gbps = 0;  // 2 * memory clock * bus width / 8, from the device's attributes
    int runtime_version = 0;
    int driver_version = 0;
    bool emulated = false;
};

// Each event type names itself (`event`): the value of the "event" key on the wire.
struct sandbox_event {
    static constexpr const char* event = "sandbox";
    std::string status = "off";  // "on", "off" or "unavailable"
    sandbox_mode mode = sandbox_mode::strict;
    int landlock_abi = 0;  // 0: no Landlock
    bool files = false;    // file access restricted
    bool network = false;  // TCP bind and connect restricted
    bool scoped = false;   // abstract unix sockets and signals scoped to the worker
    std::string detail;    // what was limited, or why there is no sandbox
    std::string exposed_folder;  // a readable system folder holding the worker (and the course)
    std::string note;      // one line for the report
};

struct part_info {
    std::string id, title, kernel, kind;  // kind: its problem kind (grader/worker/kinds/)
    std::uint64_t elements_per_block = 0;
    std::uint64_t max_grid = 0;  // the cap on a pass's grid (a grid-stride kernel); 0: none
    std::uint64_t record_len = 0;
    std::string hint;
    std::string reference_kernel, baseline_kernel;
};

struct hello_event {
    static constexpr const char* event = "hello";
    std::string lab;
    std::string backend;  // "gpu" or "emulated"
    device_info device;
    std::vector<part_info> parts;
};

struct case_begin_event {
    static constexpr const char* event = "case_begin";
    std::string part, input, size;
};

struct case_end_event {
    static constexpr const char* event = "case_end";
    case_record record;
};

struct part_correctness_event {
    static constexpr const char* event = "part_correctness";
    std::string part;
    bool passed = false;
    int cases = 0;
    int failed = 0;
    bool sticky = false;  // a sticky CUDA error ended the run
    std::optional<std::uint64_t> warp_shuffles;  // the emulator's count for the part's kernel
};

// After every part's cases when counters are asked for, whatever happened: it closes the
// part. `error` says why there are no counters, or that the student's traced run gave a
// wrong result (a kernel that behaves only when it is not watched fails its checks).
struct counters_event {
    static constexpr const char* event = "counters";
    std::string part, problems;
    std::vector<version_counters> versions;
    hazard_findings hazards;
    // The student's kernel run once more with every shuffle's value changed: "changed"
    // (its result moved: the shuffles carry it), "unchanged" (still right: decoys), or
    // "" (not run: no shuffles, or no problem to run it on).
    std::string shuffles_perturbed;
    std::string error;
};

struct timing_begin_event {
    static constexpr const char* event = "timing_begin";
    std::string part;
};

// The timing worker has made its inputs and buffers (which needs no GPU to itself) and
// waits for "go" on its stdin before it runs any kernel; anything else stops it.
struct timing_ready_event {
    static constexpr const char* event = "timing_ready";
    std::vector<std::string> parts;
};

// The correctness worker has made every input of its cases on the host (the CPU-heavy
// part, which needs no GPU) and waits for "go" on its stdin before it runs a case.
struct correctness_ready_event {
    static constexpr const char* event = "correctness_ready";
    std::vector<std::string> parts;
};

struct timed_kernel {
    std::string role;  // naive, reference, student
    std::string kernel;
    std::vector<double> ms;
};

struct timing_event {
    static constexpr const char* event = "timing";
    std::string part, problem;
    double bytes = 0;
    std::vector<timed_kernel> kernels;  // naive, reference, student
    double copy_gbps = 0, peak_gbps = 0;
    std::string recheck;  // why the student's runs are in doubt, or ""
    nlohmann::json benchmark;  // Google Benchmark's JSON report of these runs
};

struct timing_failed_event {
    static constexpr const char* event = "timing_failed";
    std::string part, message;
};

struct profiled_event {
    static constexpr const char* event = "profiled";
    std::string part, version, problem;
};

struct error_event {
    static constexpr const char* event = "error";
    std::string message;
    bool sticky = false;
};

// An event on the wire: its fields and its "event" key.
template <typename E>
nlohmann::json to_event(const E& e) {
    nlohmann::json j = e;
    j["event"] = E::event;
    return j;
}

// Whether `j` is an event of type E.
template <typename E>
bool is_event(const nlohmann::json& j) {
    const auto it = j.find("event");
    return it != j.end() && it->is_string() && it->template get<std::string>() == E::event;
}

// The part an event is about ("" for events about none).
std::string event_part(const nlohmann::json& j);

// Strict on reading: a missing key or an unknown name throws nlohmann::json::exception.
void to_json(nlohmann::json& j, worker_command v);
void from_json(const nlohmann::json& j, worker_command& v);
void to_json(nlohmann::json& j, sandbox_mode v);
void from_json(const nlohmann::json& j, sandbox_mode& v);

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(counters_request, problems, student_only)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(kind_cases, sizes, large)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(correctness_request, parts, seed, tolerance_c, inputs, problems, counters,
                                   wait_for_go)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(timing_request, parts, seed, tolerance_c, sizes, rounds, warmup, flush_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(profile_request, part, version, seed, size)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(worker_job, command, sandbox, correctness, timing, profile)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(device_info, name, sms, l2_bytes, compute_capability, peak_gbps, runtime_version,
                                   driver_version, emulated)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(sandbox_event, status, mode, landlock_abi, files, network, scoped, detail,
                                   exposed_folder, note)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(part_info, id, title, kernel, kind, elements_per_block, max_grid, record_len, hint,
                                   reference_kernel, baseline_kernel)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(hello_event, lab, backend, device, parts)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(case_begin_event, part, input, size)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(case_end_event, record)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(part_correctness_event, part, passed, cases, failed, sticky, warp_shuffles)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(timing_begin_event, part)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(counters_event, part, problems, versions, hazards, shuffles_perturbed, error)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(timing_ready_event, parts)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(correctness_ready_event, parts)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(timed_kernel, role, kernel, ms)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(timing_event, part, problem, bytes, kernels, copy_gbps, peak_gbps, recheck,
                                   benchmark)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(timing_failed_event, part, message)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(profiled_event, part, version, problem)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(error_event, message, sticky)

}  // namespace course
