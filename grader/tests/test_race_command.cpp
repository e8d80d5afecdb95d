#include <doctest/doctest.h>

#include "supervisor/technique_checks.hpp"

using namespace course;

TEST_CASE("racecheck reports hazards with their own exit code and no backtraces, then runs the worker's command") {
    CHECK(racecheck_argv("/cuda/bin/compute-sanitizer", {"/w/lab3_worker_gpu", "--events-fd", "3"}) ==
          std::vector<std::string>{"/cuda/bin/compute-sanitizer", "--tool", "racecheck", "--racecheck-report",
                                   "hazard", "--error-exitcode", "86", "--print-limit", "100", "--show-backtrace",
                                   "no", "/w/lab3_worker_gpu", "--events-fd", "3"});
}
