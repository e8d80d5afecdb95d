#include "worker/counters.hpp"

#include <algorithm>
#include <memory>

#include "course/cuda_check.hpp"
#include "emu/emu_stats.hpp"
#include "worker/executor.hpp"
#include "worker/problem_kind.hpp"

namespace course {

namespace {

constexpr std::size_t hazards_kept = 4;
// The naive baseline is shown beside the others, never judged: counted on the drawn
// problems up to this many input floats only, where it costs little time.
constexpr std::uint64_t baseline_counted_up_to = std::uint64_t{1} << 22;

const char* op_name(std::uint8_t op) { return op == 2 ? "atomic" : op == 1 ? "store" : "load"; }

// The emulator's sample of an instruction's costliest request, as offsets (result.hpp),
// when it costs more than the row's: the first of the costliest over the part's kernels.
void take_sample(instruction_row& r, const emu::request_sample& s) {
    if (s.cost <= r.sample_cost || s.lanes == 0) return;
    std::uint64_t lowest = ~std::uint64_t{0};
    for (unsigned l = 0; l < 32; ++l)
        if (s.lanes >> l & 1u) lowest = std::min(lowest, s.address[l]);
    const std::uint64_t line = lowest / 128 * 128;
    r.sample_cost = s.cost;
    r.sample_offsets.assign(32, -1);
    for (unsigned l = 0; l < 32; ++l)
        if (s.lanes >> l & 1u) r.sample_offsets[l] = static_cast<std::int64_t>(s.address[l] - line);
}

// Everything the launches since the last reset did, summed over their kernel names (a
// part may launch more than one kernel, and every pass of a reduction counts).
version_counters summed(const std::map<std::string, emu::kernel_stats>& stats, const std::string& version,
                        const std::string& kernel) {
    version_counters v;
    v.version = version;
    v.kernel = kernel;
    std::map<std::string, instruction_row> rows;
    for (const auto& [name, s] : stats) {
        v.launches += s.launches;
        v.warp_shuffles += s.warp_shuffles;
        const emu::memory_counters& m = s.memory;
        v.barriers += m.barriers;
        v.shared_load_requests += m.shared_load_requests;
        v.shared_load_wavefronts += m.shared_load_wavefronts;
        v.shared_store_requests += m.shared_store_requests;
        v.shared_store_wavefronts += m.shared_store_wavefronts;
        v.shared_atomic_requests += m.shared_atomic_requests;
        v.shared_atomic_wavefronts += m.shared_atomic_wavefronts;
        v.shared_ideal_wavefronts += m.shared_ideal_wavefronts;
        v.global_load_requests += m.global_load_requests;
        v.global_load_sectors += m.global_load_sectors;
        v.global_store_requests += m.global_store_requests;
        v.global_store_sectors += m.global_store_sectors;
        v.global_atomic_requests += m.global_atomic_requests;
        v.request_lanes += m.request_lanes;
        v.partial_requests += m.partial_requests;
        v.excess_warp_requests += m.excess_warp_requests;
        v.shared_epochs = std::max(v.shared_epochs, m.shared_epochs);
        v.warps += m.warps;
        for (const auto& [place, c] : s.instructions) {
            instruction_row& r = rows[place];
            r.place = place;
            r.shared = c.shared != 0;
            r.op = op_name(c.op);
            r.width = std::max<unsigned>(r.width, c.width);
            r.requests += c.requests;
            r.cost += c.cost;
            r.ideal += c.ideal;
            r.excess_warps += c.excess_warps;
            r.lanes += c.lanes;
            take_sample(r, c.sample);
            if (r.steps.empty())
                for (const emu::lane_step& st : c.steps) r.steps.push_back({st.step, st.warp, st.lanes});
        }
    }
    for (auto& [place, r] : rows) v.instructions.push_back(std::move(r));
    return v;
}

// One of the executor's switches on for a scope, off again whatever happens: tracing, or
// the shuffles' perturbation.
class switched_on {
public:
    explicit switched_on(void (*set)(bool)) : set_(set) { set_(true); }
    ~switched_on() {
        try {
            set_(false);
        } catch (const std::exception&) {
            // An executor that is gone has nothing left to switch.
        }
    }
    switched_on(const switched_on&) = delete;
    switched_on& operator=(const switched_on&) = delete;

private:
    void (*set_)(bool);
};

// The drawn problems of the part's kind.
const std::vector<problem_size>& drawn_problems(const part& p, const counters_request& drawn) {
    static const std::vector<problem_size> none;
    const auto it = drawn.problems.find(p.kind);
    return it == drawn.problems.end() ? none : it->second;
}

// The drawn problem whose cases are named `size` (problem_size::word()), if one is.
const problem_size* drawn_named(const part& p, const counters_request& drawn, const std::string& size) {
    for (const auto& s : drawn_problems(p, drawn))
        if (s.word() == size) return &s;
    return nullptr;
}

}  // namespace

case_tracer::case_tracer(const part& student, const counters_request& drawn) : part_(student), drawn_(drawn) {}

void case_tracer::before_case(const std::string& input, const std::string& size) {
    const bool drawn = input == to_string(input_kind::random) && student.count(size) == 0 &&
                       drawn_named(part_, drawn_, size) != nullptr;
    try {
        executor_set_counting(drawn);
    } catch (const std::exception&) {
        // The executor is gone: the case will say so.
    }
}

void case_tracer::after_case(const std::string& input, const std::string& size) {
    std::map<std::string, emu::kernel_stats> stats;
    try {
        stats = executor_launch_stats();
        executor_reset_launch_stats();
    } catch (const std::exception&) {
        return;  // the executor is gone: the case already says why
    }
    ++hazards.cases;
    for (const auto& [name, s] : stats) {
        if (name == part_.kernel) warp_shuffles += s.warp_shuffles;
        hazards.count = std::max(hazards.count, s.hazard_count);
        for (const auto& h : s.hazards) {
            auto& list = h.kind == "race" ? hazards.races : hazards.uninitialized;
            const std::string said = h.message + " (" + input + " input, " + size + ")";
            const bool known = std::any_of(list.begin(), list.end(), [&](const std::string& m) {
                return m.compare(0, h.message.size(), h.message) == 0;
            });
            if (!known && list.size() < hazards_kept) list.push_back(said);
        }
    }
    if (input != to_string(input_kind::random) || student.count(size) != 0) return;
    const problem_size* problem = drawn_named(part_, drawn_, size);
    if (problem == nullptr) return;
    version_counters v = summed(stats, "student", part_.kernel);
    v.problem = size;
    v.elements = problem_kind_named(part_.kind).input_floats(part_, *problem);
    student[size] = std::move(v);
}

namespace {

// One version run once on `prob`, traced: what its launches did.
version_counters counted_run(problem& prob, const part& version, const char* name, const std::string& size,
                             std::uint64_t elements) {
    prob.prepare_run();
    executor_reset_launch_stats();
    {
        switched_on tracing(executor_set_tracing);
        prob.run(version);
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    version_counters v = summed(executor_launch_stats(), name, version.kernel);
    v.problem = size;
    v.elements = elements;
    return v;
}

// The baseline's (where it costs little) and the reference's counters on one problem, in
// that order. Lab 1's naive baseline is its reference: counted once.
void count_course_versions(problem& prob, const part* const versions[3], const std::string& size,
                           std::uint64_t elements, std::vector<version_counters>& into) {
    version_counters reference = counted_run(prob, *versions[1], "reference", size, elements);
    if (elements <= baseline_counted_up_to) {
        version_counters baseline =
            versions[0] == versions[1] ? reference : counted_run(prob, *versions[0], "baseline", size, elements);
        baseline.version = "baseline";
        into.push_back(std::move(baseline));
    }
    into.push_back(std::move(reference));
}

}  // namespace

counters_event count_versions(const part* const versions[3], const counters_request& drawn,
                              const case_tracer& traced, std::uint64_t seed, double tolerance_c) {
    const part& student = *versions[2];
    const problem_kind& kind = problem_kind_named(student.kind);
    counters_event out{student.id, "", {}, traced.hazards, "", ""};
    for (const problem_size& ps : drawn_problems(student, drawn)) {
        const std::string size = ps.word();
        const auto mine = traced.student.find(size);
        if (mine == traced.student.end()) continue;  // its case did not run to the end
        const bool perturb = traced.warp_shuffles > 0 && out.shuffles_perturbed.empty();
        // With student_only the supervisor has the others: a problem only to perturb on.
        std::unique_ptr<problem> prob;
        if (!drawn.student_only || perturb)
            prob = kind.make_problem(versions, ps, tolerance_c, kind.make_inputs(student, ps, seed, std::nullopt, false));
        if (!drawn.student_only) count_course_versions(*prob, versions, size, mine->second.elements, out.versions);
        out.versions.push_back(mine->second);
        out.problems += (out.problems.empty() ? "" : ", ") + size;
        if (perturb) {
            // Right with every shuffle's value changed: the shuffles carried nothing.
            prob->prepare_run();
            try {
                switched_on perturbed(executor_set_perturb_shuffles);
                prob->run(student);
                CUDA_CHECK(cudaDeviceSynchronize());
                out.shuffles_perturbed = prob->check_last(student).ok ? "unchanged" : "changed";
            } catch (const executor_lost&) {
                throw;
            } catch (const std::exception&) {
                out.shuffles_perturbed = "changed";  // it faulted: the values mattered
            }
        }
    }
    executor_reset_launch_stats();
    return out;
}

counters_event count_references(const part* const versions[3], const counters_request& problems, std::uint64_t seed,
                                double tolerance_c) {
    const part& student = *versions[2];  // never run: it sizes the buffers as in a grade
    const problem_kind& kind = problem_kind_named(student.kind);
    counters_event out{student.id, "", {}, {}, "", ""};
    for (const problem_size& ps : drawn_problems(student, problems)) {
        const std::string size = ps.word();
        const auto prob =
            kind.make_problem(versions, ps, tolerance_c, kind.make_inputs(student, ps, seed, std::nullopt, false));
        count_course_versions(*prob, versions, size, kind.input_floats(student, ps), out.versions);
        out.problems += (out.problems.empty() ? "" : ", ") + size;
    }
    executor_reset_launch_stats();
    return out;
}

}  // namespace course
