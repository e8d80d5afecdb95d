// The correctness suite is a doctest test case that runs the part's problem kind's cases
// (worker/kinds/). The worker runs it through its own doctest context, one part at a time.
#define DOCTEST_CONFIG_IMPLEMENT
#define DOCTEST_CONFIG_NO_POSIX_SIGNALS  // the CPU emulator owns SIGSEGV and SIGALRM
#include "worker/correctness.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <stdexcept>

#include "course/cuda_check.hpp"
#include "worker/case_suite.hpp"
#include "worker/events.hpp"
#if defined(COURSE_EMULATE)
#include "worker/executor.hpp"
#endif
#include "worker/problem_kind.hpp"

namespace course {

namespace {

const correctness_job* g_job = nullptr;
correctness_summary g_summary;
input_cache g_inputs;  // every part's cases draw from it (one seed per worker run)

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

// case_suite::run(): see there.
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

const kind_cases& cases_for(const correctness_job& job, const part& p) {
    const auto it = job.problems.find(p.kind);
    if (it == job.problems.end())
        throw std::invalid_argument("the request has no cases for problem kind \"" + p.kind + "\" (part " + p.id + ")");
    return it->second;
}

}  // namespace

void case_suite::run(const std::string& input, const std::string& size, std::uint64_t n,
                     const std::function<case_record()>& body) {
    run_case(input, size, n, body);
}

void prepare_correctness_inputs(const correctness_job& job, const std::vector<const part*>& parts) {
    g_job = &job;
    case_suite suite(job, g_inputs);
    for (const part* p : parts) problem_kind_named(p->kind).prepare_cases(*p, cases_for(job, *p), suite);
    g_job = nullptr;
}

correctness_summary run_correctness(const correctness_job& job) {
    (void)problem_kind_named(job.target->kind);  // before any case: a missing kind or
    (void)cases_for(job, *job.target);           // request is the job's mistake, not a failed case
    g_job = &job;
    g_summary = {};
    doctest::Context context;
    context.setOption("reporters", "course_quiet");
    context.setOption("test-case", "cases");
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

TEST_CASE("cases") {
    const course::part& p = *g_job->target;
    course::case_suite suite(*g_job, course::g_inputs);
    course::problem_kind_named(p.kind).run_cases(p, course::cases_for(*g_job, p), suite);
}
