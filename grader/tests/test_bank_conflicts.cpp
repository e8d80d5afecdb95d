#include <doctest/doctest.h>

#include "core/bank_conflicts.hpp"

using namespace course;

// Nsight Compute's shared-load wavefronts per request on an H200, one row per access pattern.
TEST_CASE("4-byte accesses") {
    CHECK(shared_wavefronts(strided_access(1, 4), 4) == 1);
    CHECK(shared_wavefronts(strided_access(33, 4), 4) == 1);
    CHECK(shared_wavefronts(strided_access(0, 4), 4) == 1);  // broadcast
    CHECK(shared_wavefronts(strided_access(2, 4), 4) == 2);
    CHECK(shared_wavefronts(strided_access(32, 4), 4) == 32);
}

TEST_CASE("8-byte accesses go in half-warp phases") {
    CHECK(shared_wavefronts(strided_access(1, 8), 8) == 2);
    CHECK(shared_wavefronts(strided_access(2, 8), 8) == 4);
    CHECK(shared_wavefronts(strided_access(16, 8), 8) == 32);
}

TEST_CASE("16-byte accesses go in quarter-warp phases") {
    CHECK(shared_wavefronts(strided_access(1, 16), 16) == 4);
    CHECK(shared_wavefronts(strided_access(2, 16), 16) == 8);
    CHECK(shared_wavefronts(strided_access(8, 16), 16) == 32);
}

TEST_CASE("lab 5's rows: 8 floats conflict 8-way, 9 floats are free") {
    CHECK(shared_wavefronts(strided_access(8, 4), 4) == 8);
    CHECK(shared_wavefronts(strided_access(9, 4), 4) == 1);
    CHECK(shared_wavefronts(strided_access(6, 4), 4) == 2);  // threads 0 and 16 share a bank
    CHECK(shared_wavefronts(strided_access(3, 8), 8) == 2);  // rows of 6 floats read as 8-byte pairs: free
    CHECK(shared_wavefronts(strided_access(3, 16), 16) == 4);  // rows of 12 floats as float4: free
}

TEST_CASE("inactive lanes do not count") {
    warp_access a = strided_access(32, 4);
    for (unsigned lane = 1; lane < 32; ++lane) a[lane].active = false;
    CHECK(shared_wavefronts(a, 4) == 1);
    for (auto& l : a) l.active = false;
    CHECK(shared_wavefronts(a, 4) == 0);
    CHECK_THROWS(shared_wavefronts(a, 12));
}

TEST_CASE("the bank map names the lanes of each bank") {
    const std::string map = bank_map(strided_access(32, 4), 4);
    CHECK(map.find("bank  0: lanes 0 1 2 3") != std::string::npos);
    CHECK(map.find("32 wavefront(s) for this request; the minimum for 4-byte accesses is 1 (32-way conflict)") !=
          std::string::npos);
    CHECK(bank_map(strided_access(33, 4), 4).find("(conflict-free)") != std::string::npos);
}
