// The correctness suites are doctest test cases. The worker runs them through its own
// doctest context, one part at a time, selecting the test cases of the part's kind.
#define DOCTEST_CONFIG_IMPLEMENT
#define DOCTEST_CONFIG_NO_POSIX_SIGNALS  // the CPU emulator owns SIGSEGV and SIGALRM
#include "worker/correctness.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <sstream>

#include "inputs/perturbation.hpp"
#include "course/cuda_check.hpp"
#include "worker/events.hpp"
#if defined(COURSE_EMULATE)
#include "worker/executor.hpp"
#endif
#include "worker/reduction_case.hpp"
#include "worker/transpose_case.hpp"

namespace course {

namespace {

const correctness_job* g_job = nullptr;
correctness_summary g_summary;
input_cache g_inputs;  // every part's cases draw from it (one seed per worker run)

// The two inputs of every transpose shape: see the "transpose" test case.
constexpr input_kind transpose_inputs[] = {input_kind::random, input_kind::index};

struct sticky_abort {};  // unwinds out of a test case once the CUDA context is dead

// After a CUDA error: can the context still be used? Some faults (an illegal address, and
// on the H200 cudaErrorInvalidAddressSpace for a wild store) leave every later call failing.
bool context_is_broken() {
    void* probe = nullptr;
    const cudaError_t sync = cudaDeviceSynchronize();
    const cudaError_t alloc = sync == cudaSuccess ? cudaMalloc(&probe, 256) : sync;
    if (probe != nullptr) (void)cudaFree(probe);
    (void)cudaGetLastError();
    return alloc != cudaSuccess;
}

// Reports the case before it runs, so that a crash or hang can be pinned on it, then
// runs it and turns any exception into a failed case with the exception's text. `n` is
// the case's element count, set here too: a case that threw has no record of its own,
// and the hints read the sizes of every failure, faults included.
void run_case(const std::string& input, const std::string& size, std::uint64_t n,
              const std::function<case_record()>& body) {
    const part& p = *g_job->target;
    events().emit(case_begin_event{p.id, input, size});
    if (g_job->before_case) g_job->before_case(input, size);
    case_record rec;
    try {
        rec = body();
    } catch (const cuda_error& e) {
        rec.fault = true;
        rec.detail = e.what();
        g_summary.sticky = g_summary.sticky || e.sticky() || context_is_broken();
#if defined(COURSE_EMULATE)
    } catch (const executor_lost& e) {
        // Like a dead CUDA context: nothing more of the lab can run in this worker.
        rec.fault = true;
        rec.detail = e.what();
        g_summary.sticky = true;
    } catch (const emu::kernel_timeout& e) {
        rec.fault = true;
        rec.timed_out = true;
        rec.detail = e.what();
#endif
    } catch (const contract_error& e) {
        rec.detail = e.what();
    } catch (const std::exception& e) {
        rec.fault = true;
        rec.detail = e.what();
    }
    rec.part = p.id;
    rec.input = input;
    rec.size = size;
    rec.n = n;
    if (g_job->after_case) g_job->after_case(input, size);
    events().emit(case_end_event{rec});
    ++g_summary.cases;
    if (!rec.ok) ++g_summary.failed;
    g_summary.hung = g_summary.hung || rec.timed_out;
    CHECK_MESSAGE(rec.ok, p.id << " " << input << " " << size << ": " << rec.detail);
    // A sticky error leaves nothing to run on; a kernel that hung once will hang again.
    if (g_summary.sticky || rec.timed_out) throw sticky_abort{};
}

// Silent reporter: the events above are the output; doctest keeps the verdict.
struct quiet_reporter : doctest::IReporter {
    explicit quiet_reporter(const doctest::ContextOptions&) {}
    void report_query(const doctest::QueryData&) override {}
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats&) override {}
    void test_case_start(const doctest::TestCaseData&) override {}
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_end(const doctest::CurrentTestCaseStats&) override {}
    void test_case_exception(const doctest::TestCaseException&) override {}
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData&) override {}
    void log_message(const doctest::MessageData&) override {}
    void test_case_skipped(const doctest::TestCaseData&) override {}
};

// Sizes that also get a "random, changed" case: the largest, where a kernel that
// remembers per-block results saves the most; only a few, as the emulator is slow.
constexpr std::size_t changed_case_sizes = 3;

bool among_largest(const std::vector<std::size_t>& sizes, std::size_t n) {
    std::vector<std::size_t> sorted = sizes;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    sorted.resize(std::min(sorted.size(), changed_case_sizes));
    return std::find(sorted.begin(), sorted.end(), n) != sorted.end();
}

// The random case of size n, then the same buffers again after a few input elements
// were rewritten (and the outputs poisoned): a kernel that remembers its result for an
// input it has seen, keyed on a few of its elements, returns a stale sum there.
void random_and_changed_cases(const part& p, std::size_t n, const std::string& size) {
    std::optional<reduction_fixture> fixture;
    bool first_ok = false;
    const std::string random = to_string(input_kind::random);
    run_case(random, size, n, [&] {
        fixture.emplace(n, p.shape.scratch_elems(n), p.record_len);
        fixture->use(input_kind::random, g_job->seed, g_inputs);
        const case_record rec = fixture->check(p, g_job->tolerance_c);
        first_ok = rec.ok;
        return rec;
    });
    if (!fixture) return;
    run_case(random + ", changed", size, n, [&] {
        fixture->perturb(run_seed(reduction_case_seed(g_job->seed, input_kind::random, n), 0), g_job->tolerance_c);
        case_record rec = fixture->check(p, g_job->tolerance_c);
        if (!rec.ok && first_ok) rec.detail += changed_case_advice();
        return rec;
    });
}

void reduction_cases(const std::vector<std::size_t>& sizes, const std::vector<std::size_t>& large) {
    for (const auto kind : g_job->inputs) {
        for (const std::size_t n : sizes) {
            const std::string size = "n=" + std::to_string(n);
            if (kind == input_kind::random && among_largest(sizes, n)) {
                random_and_changed_cases(*g_job->target, n, size);
                continue;
            }
            run_case(to_string(kind), size, n, [&] {
                return run_reduction_case(*g_job->target, kind, n, g_job->seed, g_job->tolerance_c, g_inputs);
            });
        }
    }
    for (const std::size_t n : large) {
        run_case(to_string(input_kind::random), "n=" + std::to_string(n), n, [&] {
            return run_reduction_case(*g_job->target, input_kind::random, n, g_job->seed, g_job->tolerance_c,
                                      g_inputs);
        });
    }
}

// Makes (through g_inputs) what reduction_cases will draw for parts of `width` floats
// per element.
void prepare_reduction_inputs(const std::vector<std::size_t>& sizes, const std::vector<std::size_t>& large,
                              unsigned width) {
    const auto make = [&](input_kind kind, std::size_t n) {
        (void)g_inputs.sums(kind, reduction_case_seed(g_job->seed, kind, n), n, width);
    };
    for (const auto kind : g_job->inputs)
        for (const std::size_t n : sizes) make(kind, n);
    for (const std::size_t n : large) make(input_kind::random, n);
}

}  // namespace

void prepare_correctness_inputs(const correctness_job& job, const std::vector<const part*>& parts) {
    g_job = &job;
    for (const part* p : parts) {
        switch (p->kind) {
        case part_kind::reduction: prepare_reduction_inputs(job.sizes, job.large_sizes, p->record_len); break;
        case part_kind::record_sums:
            prepare_reduction_inputs(job.record_sizes, job.large_record_sizes, p->record_len);
            break;
        case part_kind::transpose:
            for (const std::string& shape : job.shapes) {
                unsigned rows = 0, cols = 0;
                if (!parse_shape(shape, rows, cols)) continue;  // the test case reports it
                for (const auto kind : transpose_inputs)
                    (void)g_inputs.values(kind, transpose_case_seed(job.seed, kind, rows, cols),
                                          std::size_t{rows} * cols);
            }
            break;
        }
    }
    g_job = nullptr;
}

correctness_summary run_correctness(const correctness_job& job) {
    g_job = &job;
    g_summary = {};
    doctest::Context context;
    context.setOption("reporters", "course_quiet");
    context.setOption("test-case", to_string(job.target->kind));
    context.setOption("no-breaks", true);
    context.setOption("no-intro", true);
    const int failed = context.run();
    g_summary.passed = failed == 0 && g_summary.failed == 0 && g_summary.cases > 0;
    g_job = nullptr;
    return g_summary;
}

}  // namespace course

DOCTEST_REGISTER_REPORTER("course_quiet", 0, course::quiet_reporter);

using course::g_job;

TEST_CASE("reduction") { course::reduction_cases(g_job->sizes, g_job->large_sizes); }

TEST_CASE("record_sums") { course::reduction_cases(g_job->record_sizes, g_job->large_record_sizes); }

TEST_CASE("transpose") {
    // Random values, and each element's own index: with the index, a wrong element says
    // exactly where it came from. Both kinds of a shape one after the other: a value a
    // kernel leaves behind in shared memory is then one of the other kind (indices are
    // integers, random values are not), which the failure message recognises as stale.
    for (const std::string& shape : g_job->shapes) {
        unsigned rows = 0, cols = 0;
        REQUIRE_MESSAGE(course::parse_shape(shape, rows, cols), "bad shape " << shape);
        for (const auto kind : course::transpose_inputs) {
            course::run_case(course::to_string(kind), shape, std::uint64_t{rows} * cols, [&] {
                return course::run_transpose_case(*g_job->target, kind, rows, cols, g_job->seed, course::g_inputs);
            });
        }
    }
}
