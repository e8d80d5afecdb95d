#pragma once
// A problem kind: how its parts' correctness cases run, and the problem their timing, the
// emulator's counters and a profiler run. Each kind is one module of grader/worker/kinds/
// that registers itself (COURSE_PROBLEM_KIND); its sizes are the policy's "problems" block
// of the same name, which the supervisor sends with every request. Nothing else in the
// worker knows one kind from another.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/problem_size.hpp"
#include "core/protocol.hpp"
#include "worker/part.hpp"
#include "worker/problem.hpp"

namespace course {

class case_suite;  // worker/case_suite.hpp

class problem_kind {
public:
    virtual ~problem_kind() = default;
    // Makes on the host every input that run_cases will draw at `cases` (through the suite's
    // input cache), so that the cases themselves only upload and run: the worker does this
    // before it asks for the GPU. Nothing where the cases make their inputs on the device
    // (correctness_job::inputs_on_device).
    virtual void prepare_cases(const part& p, const kind_cases& cases, case_suite& suite) const = 0;
    // Runs every correctness case of `p` at `cases`, each through suite.run().
    virtual void run_cases(const part& p, const kind_cases& cases, case_suite& suite) const = 0;
    // The input floats of a problem of this size: what the counters are per.
    virtual std::uint64_t input_floats(const part& p, const problem_size& size) const = 0;
    // The inputs of a timed (counted, profiled) problem of this size, on the host; with
    // on_device, a kind that can make them on the device (worker/input_maker.hpp) only
    // names them here and makes them with the problem, leaving the host nothing to do.
    virtual problem_inputs make_inputs(const part& p, const problem_size& size, std::uint64_t seed,
                                       std::optional<std::uint64_t> fresh_seed, bool on_device) const = 0;
    // Allocates, and uploads the inputs or makes them on the device. The buffers are sized for all three versions (naive,
    // reference, student), so none reallocates; `inputs` from make_inputs at the same size.
    virtual std::unique_ptr<problem> make_problem(const part* const versions[3], const problem_size& size,
                                                  double tolerance_c, problem_inputs inputs) const = 0;
};

// The kind of that name; std::invalid_argument naming the known kinds when there is none.
const problem_kind& problem_kind_named(const std::string& name);
std::vector<std::string> problem_kind_names();

// A kind's module registers it at start-up; a second kind of the same name is a build
// mistake that stops the worker before anything runs.
struct problem_kind_registration {
    problem_kind_registration(const char* name, std::unique_ptr<problem_kind> kind);
};

}  // namespace course

// In a kind's module, in the namespace of its class: COURSE_PROBLEM_KIND("transpose",
// transpose_kind); one class may serve several kinds.
#define COURSE_KIND_NAME_(line) course_problem_kind_##line
#define COURSE_KIND_NAME(line) COURSE_KIND_NAME_(line)
#define COURSE_PROBLEM_KIND(name, type) \
    const ::course::problem_kind_registration COURSE_KIND_NAME(__COUNTER__){name, std::make_unique<type>()}
