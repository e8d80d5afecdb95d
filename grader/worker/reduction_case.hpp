#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inputs/input_cache.hpp"
#include "inputs/inputs.hpp"
#include "inputs/perturbation.hpp"
#include "core/result.hpp"
#include "worker/guarded_buffer.hpp"
#include "worker/part.hpp"

namespace course {

// Device buffers for one reduction run: the input (followed by NaN guard words, so a
// read past the end shows up as a NaN sum), the output and the scratch for partial sums,
// each followed by guard words. `width` floats per element: 1 for plain sums, 8 for
// lab 5's records.
struct reduction_buffers {
    reduction_buffers(std::size_t n, std::size_t scratch_elems, unsigned width = 1);
    unsigned width;
    guarded_buffer in;
    guarded_buffer out;
    guarded_buffer scratch;
};

// One reduction input on the device with its exact sums (and on the host where it was made
// there). It serves several runs: the timing loop changes a few elements before every run,
// and the correctness suites once after the normal case, so that a kernel that remembers
// results fails.
class reduction_fixture {
public:
    // Buffers for n elements of `width` floats and `scratch_elems` partial sums of them.
    reduction_fixture(std::size_t n, std::size_t scratch_elems, unsigned width);

    // An input of `kind` (n * width floats) with its exact sums, now the fixture's own,
    // uploaded.
    void draw(input_kind kind, host_floats values, component_sums sums);
    // The case input of `kind` for the run's seed (reduction_case_seed), with its sums: made
    // in place on the device where `on_device` (worker/input_maker.hpp), else drawn from
    // `inputs` (made once on the host for every part) and uploaded. The fixture never writes
    // a drawn input: perturb() keeps its changes apart and asks the input for the rest.
    void use(input_kind kind, std::uint64_t run_seed, input_cache& inputs, bool on_device = false);
    // The input of (kind, seed) made in place on the device (worker/input_maker.hpp), with its
    // sums; perturb() keeps its changes apart and asks the input for the rest.
    void make(input_kind kind, std::uint64_t seed);
    // Rewrites a few elements on the host and the device (perturb_sums); the sums follow.
    void perturb(std::uint64_t seed, double tolerance_c);
    // Poisons out and scratch, payloads only, queued: before every timed run.
    void poison_async();
    void run(const part& p);  // launches, does not synchronise
    // Reads what the last run left in out and judges every component against the
    // current sums; also checks the guards of out and scratch.
    case_record judge(const std::string& part_id, double tolerance_c);
    // Poisons out and scratch (guards re-armed), runs once and judges.
    case_record check(const part& p, double tolerance_c);

    std::size_t n() const { return n_; }
    unsigned width() const { return bufs_.width; }

private:
    // The fixture's input is now one of `kind` with these sums, unchanged, from nowhere yet.
    void start(input_kind kind, component_sums sums);

    std::size_t n_;
    input_kind kind_ = input_kind::random;
    bool changed_ = false;  // changed elements are not integers: no exact judging then
    reduction_buffers bufs_;
    host_floats host_;                     // the fixture's own input (draw)
    const host_floats* cached_ = nullptr;  // or a cached one (use), or
    std::optional<std::uint64_t> made_;    // the seed of one made on the device (use), with
    std::vector<element_change> cached_changes_;  // the changes made to either since
    component_sums sums_;
};

// The seed of the input of `kind` for a case of n elements (records).
std::uint64_t reduction_case_seed(std::uint64_t run_seed, input_kind kind, std::size_t n);

// Puts the input of `kind` for (seed, n), from `inputs`, in place (use) and checks one run.
case_record run_reduction_case(const part& p, input_kind kind, std::size_t n, std::uint64_t run_seed,
                               double tolerance_c, input_cache& inputs, bool on_device = false);

}  // namespace course
