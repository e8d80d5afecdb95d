#pragma once
#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/problem_size.hpp"
#include "core/protocol.hpp"

namespace course {

struct policy_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Every value comes from the policy file (grader/policy/default_policy.jsonc and the labs'
// lab.json policies, with an instructor's file merged over them): the structs hold no
// defaults of their own, so that no number here can disagree with it.
struct lab_policy {
    double points = 0;
    double correctness_weight = 0;
    double threshold_fraction = 0;
    double floor_fraction = 0;
    std::vector<std::string> checks;
    double max_wavefronts_per_request = 0;
    // Parts whose correctness cases run once more under compute-sanitizer racecheck on a
    // GPU: the parts that teach warp-synchronous code, where a race often gives the right
    // sum anyway.
    std::vector<std::string> race_check_parts;
    // The CPU emulator's technique checks of each part, read from its counters
    // (supervisor/emulated_checks.hpp): part id -> check names.
    std::map<std::string, std::vector<std::string>> emulated_checks;
};

// A library the lab file must not use (no_libraries), and the ECMAScript regular
// expressions that find it: `include` in the path of an #include, `code` in the source
// with comments and string literals blanked out, `symbol` in a line of `nm -C` output.
// An empty expression looks nowhere.
struct library_rule {
    std::string name;
    std::string include;
    std::string code;
    std::string symbol;
};

// One problem kind's block under "problems" (a worker module of the same name,
// grader/worker/kinds/): its sizes on each backend, what is timed, where the emulator's
// counters are drawn, and how a failure and the counters are read.
struct problem_policy {
    std::vector<problem_size> sizes, sizes_emulated;
    std::vector<problem_size> large_sizes_emulated;  // one random case each, on the emulator
    // compute-sanitizer's cases on a GPU: racecheck's (race_check_parts) and --sanitize's
    std::vector<problem_size> sanitizer_sizes;
    problem_size profiled;  // the one run Nsight Compute profiles
    problem_size timed;
    // Counters are drawn among the random emulated cases of at least this size (in the
    // kind's count: records for record sums, rows x cols for a shape).
    std::uint64_t counted_from = 0;
    std::string hints;   // which advice reads a failed case: "sums" or "movement" (core/hints.hpp)
    std::string ladder;  // which rungs its counters climb: "reduction" or "banks" (core/ladder.hpp)
};

struct policy {
    // correctness
    double tolerance_c = 0;
    std::vector<std::string> reduction_inputs;
    double case_timeout_seconds = 0;
    std::map<std::string, problem_policy> problems;  // by kind
    // timing
    int rounds = 0;
    int max_rounds = 0;
    int warmup = 0;
    std::size_t flush_bytes = 0;
    double confidence = 0;
    double implausible_fraction = 0;
    double timing_timeout_seconds = 0;
    bool timing_same_worker = true;  // the correctness worker times the parts that pass (GPU)
    // technique checks
    std::vector<library_rule> forbidden_libraries;
    std::vector<std::string> race_check_inputs;
    double race_check_timeout_seconds = 0;
    // the CPU emulator's counters: how many problems each grade draws, from which cases,
    // and the checks' limits (default_policy.jsonc says what each is)
    int counters_draws = 0;
    double divergence_margin = 0;       // no_divergence: excess warp-requests per element over the reference's
    double shared_tree_factor = 0;      // no_shared_tree: shared wavefronts per element, times the reference's
    double shared_tree_slack = 0;       // ... plus this many per element
    int shared_epochs_slack = 0;        // no_shared_tree: shared epochs of a warp over the reference's
    double max_excess_wavefronts = 0;   // bank_wavefronts: excess shared wavefronts per element
    double wide_loads_factor = 0;       // wide_loads: what makes a load narrow, against the reference's
    double narrow_sectors_slack = 0;    // wide_loads: narrow-load sectors per element over the reference's
    // On a GPU, whether the emulator's run beside it takes each kind's large_sizes_emulated
    // too (grading_plan.hpp, beside_gpu)
    bool large_beside_gpu = true;
    // backends
    std::string emulated_performance;
    std::map<std::string, lab_policy> labs;

    const lab_policy& lab(const std::string& name) const;
    // Throws policy_error when the policy has no block for the kind.
    const problem_policy& problem(const std::string& kind) const;
};

// The defaults compiled into the grader (grader/policy/default_policy.jsonc), and every
// lab's own policy keys, the default policy's "labs" ({lab: keys}, from each lab.json).
const char* default_policy_text();
const char* default_lab_policies_text();

// Defaults, with `override_file` (if not empty) merged over them. Throws policy_error
// with a message that names the file and the key.
policy load_policy(const std::string& override_file);
policy parse_policy(const nlohmann::json& doc);

}  // namespace course
