// The correctness suites are doctest test cases. The worker runs them through its own
// doctest context, one part at a time, selecting the test cases of the part's kind.
#define DOCTEST_CONFIG_IMPLEMENT
#define DOCTEST_CONFIG_NO_POSIX_SIGNALS  // the CPU emulator owns SIGSEGV and SIGALRM
#include "worker/correctness.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <sstream>

#include "course/cuda_check.hpp"
#include "worker/events.hpp"
#include "worker/reduction_case.hpp"
#include "worker/transpose_case.hpp"

namespace course {

namespace {

const correctness_job* g_job = nullptr;
correctness_summary g_summary;

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
// runs it and turns any exception into a failed case with the exception's text.
void run_case(const std::string& input, const std::string& size, const std::function<case_record()>& body) {
    const part& p = *g_job->target;
    events().emit({{"event", "case_begin"}, {"part", p.id}, {"input", input}, {"size", size}});
    case_record rec;
    try {
        rec = body();
    } catch (const cuda_error& e) {
        rec.fault = true;
        rec.detail = e.what();
        g_summary.sticky = g_summary.sticky || e.sticky() || context_is_broken();
#if defined(COURSE_EMULATE)
    } catch (const emu::kernel_timeout& e) {
        rec.fault = true;
        rec.timed_out = true;
        rec.detail = e.what();
#endif
    } catch (const std::exception& e) {
        rec.fault = true;
        rec.detail = e.what();
    }
    rec.part = p.id;
    rec.input = input;
    rec.size = size;
    events().emit({{"event", "case_end"}, {"record", rec}});
    ++g_summary.cases;
    if (!rec.ok) ++g_summary.failed;
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

}  // namespace

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

TEST_CASE("reduction") {
    for (const auto kind : g_job->inputs) {
        for (const std::size_t n : g_job->sizes) {
            course::run_case(course::to_string(kind), "n=" + std::to_string(n), [&] {
                return course::run_reduction_case(*g_job->target, kind, n, g_job->seed, g_job->tolerance_c);
            });
        }
    }
}

TEST_CASE("record_sums") {
    for (const auto kind : g_job->inputs) {
        for (const std::size_t n : g_job->record_sizes) {
            course::run_case(course::to_string(kind), "n=" + std::to_string(n), [&] {
                return course::run_reduction_case(*g_job->target, kind, n, g_job->seed, g_job->tolerance_c);
            });
        }
    }
}

TEST_CASE("transpose") {
    // Random values, and each element's own index: with the index, a wrong element says
    // exactly where it came from.
    for (const auto kind : {course::input_kind::random, course::input_kind::index}) {
        for (const std::string& shape : g_job->shapes) {
            unsigned rows = 0, cols = 0;
            REQUIRE_MESSAGE(course::parse_shape(shape, rows, cols), "bad shape " << shape);
            course::run_case(course::to_string(kind), shape, [&] {
                return course::run_transpose_case(*g_job->target, kind, rows, cols, g_job->seed);
            });
        }
    }
}
