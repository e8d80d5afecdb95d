#include <doctest/doctest.h>

#include "supervisor/technique_checks.hpp"

using namespace course;

TEST_CASE("racecheck instruments only the student's namespace, then runs the worker's command") {
    const std::vector<race_target> targets = {
        {"B", "lab3_student::reduce_warp_unrolled", "reduce_warp_unrolled", "reduction"},
        {"C", "lab3_student::reduce_full_unroll", "reduce_full_unroll", "reduction"}};
    const std::vector<std::string> argv =
        racecheck_argv("/cuda/bin/compute-sanitizer", targets, {"/w/lab3_worker_gpu", "--events-fd", "3"});
    CHECK(argv == std::vector<std::string>{"/cuda/bin/compute-sanitizer", "--tool", "racecheck", "--racecheck-report",
                                           "hazard", "--error-exitcode", "86", "--print-limit", "100",
                                           "--show-backtrace", "no", "--kernel-name", "kns=lab3_student",
                                           "/w/lab3_worker_gpu", "--events-fd", "3"});
    const std::vector<race_target> lab5 = {{"A", "lab5_student::transpose_padded", "transpose_padded", "transpose"}};
    CHECK(racecheck_argv("cs", lab5, {"w"}) ==
          std::vector<std::string>{"cs", "--tool", "racecheck", "--racecheck-report", "hazard", "--error-exitcode",
                                   "86", "--print-limit", "100", "--show-backtrace", "no", "--kernel-name",
                                   "kns=lab5_student", "w"});
}
