#include <doctest/doctest.h>

#include "core/bank_verdict.hpp"

using namespace course;

// Figures from the H200 runs of lab 5 (docs/results.md).
TEST_CASE("a padded tile passes, with the baseline beside it") {
    const check_result r = bank_wavefronts_verdict({1.04, 1.00}, shared_traffic{32.12, 1.00}, 1.1, true);
    CHECK(r.name == "bank_wavefronts");
    CHECK(r.status == check_status::passed);
    CHECK(r.detail ==
          "yours: 1.04 wavefronts per shared-load request (conflict-free), 1.00 per store; "
          "baseline: 32.12 wavefronts per shared-load request, 1.00 per store; the limit is 1.10 per load");
}

TEST_CASE("the unpadded kernel fails the limit") {
    const check_result r = bank_wavefronts_verdict({5.39, 3.65}, std::nullopt, 1.1, true);
    CHECK(r.status == check_status::failed);
    CHECK(r.detail == "yours: 5.39 wavefronts per shared-load request, 3.65 per store; the limit is 1.10 per load");
}

TEST_CASE("the limit itself passes; just above it fails") {
    CHECK(bank_wavefronts_verdict({1.10, 1.0}, std::nullopt, 1.1, true).status == check_status::passed);
    CHECK(bank_wavefronts_verdict({1.11, 1.0}, std::nullopt, 1.1, true).status == check_status::failed);
}

TEST_CASE("no shared loads is not conflict-free: it fails") {
    const check_result none = bank_wavefronts_verdict({0, 0}, shared_traffic{5.39, 3.65}, 1.1, true);
    CHECK(none.status == check_status::failed);
    CHECK(none.detail ==
          "yours: no shared-memory loads or stores; baseline: 5.39 wavefronts per shared-load request, 3.65 per "
          "store; this part stages its data in a __shared__ array, and there were no shared loads to measure");
    const check_result stores_only = bank_wavefronts_verdict({0, 1.0}, std::nullopt, 1.1, true);
    CHECK(stores_only.status == check_status::failed);
    CHECK(stores_only.detail.rfind("yours: no shared-memory loads, 1.00 wavefronts per store; ", 0) == 0);
}

TEST_CASE("--profile reports without grading") {
    const check_result r = bank_wavefronts_verdict({5.39, 3.65}, std::nullopt, 1.1, false);
    CHECK(r.status == check_status::info);
    CHECK(r.detail == "yours: 5.39 wavefronts per shared-load request, 3.65 per store (not graded)");
}
