#include <doctest/doctest.h>

#include "core/tool_output.hpp"

using namespace course;

TEST_CASE("forbidden libraries: includes and symbols") {
    const std::string src = "// uses cub in a comment only\n#include \"contracts/lab4.cuh\"\n  #include <cub/cub.cuh>\n"
                            "#include <thrust/reduce.h>\n";
    const std::string nm = "0000000000000000 T _Z3fooPKf\n                 U cub::CUB_300000_SM_900::DeviceReduce\n";
    const auto found = forbidden_library_uses(src, nm);
    REQUIRE(found.size() == 3);
    CHECK(found[0] == "line 3:   #include <cub/cub.cuh>");
    CHECK(found[1] == "line 4: #include <thrust/reduce.h>");
    CHECK(found[2] == "symbol cub::CUB_300000_SM_900::DeviceReduce");
    CHECK(forbidden_library_uses("#include \"contracts/lab4.cuh\"\n", "").empty());
}

TEST_CASE("SASS search finds SHFL in the kernel's own section") {
    const std::string sass = R"(
	code for sm_90
		Function : _ZN12lab4_student18reduce_vectorizedEPKfPfj
        /*0100*/                   LDG.E.128 R4, desc[UR4][R2.64] ;
        /*0110*/                   FADD R0, R4, R5 ;
		Function : _ZN12lab4_student14reduce_shuffleEPKfPfj
        /*0200*/                   SHFL.DOWN PT, R3, R0, 0x10, 0x1f ;
)";
    CHECK(find_in_sass(sass, "reduce_shuffle", "SHFL", {"reduce_vectorized"}) == sass_search::found);
    CHECK(find_in_sass(sass, "reduce_vectorized", "SHFL", {"reduce_shuffle"}) == sass_search::not_found);
    CHECK(find_in_sass(sass, "reduce_missing", "SHFL", {}) == sass_search::no_such_function);
}

TEST_CASE("SASS search counts a shuffle in a device function the kernel calls") {
    const std::string sass = R"(
		Function : _ZN12lab4_student8warp_sumEf
        /*0000*/                   SHFL.BFLY PT, R3, R4, 0x1, 0x1f ;
		Function : _ZN12lab4_student14reduce_shuffleEPKfPfj
        /*0100*/                   CALL.REL.NOINC `(_ZN12lab4_student8warp_sumEf) ;
)";
    CHECK(find_in_sass(sass, "reduce_shuffle", "SHFL", {"reduce_vectorized"}) == sass_search::found);
}

TEST_CASE("compute-sanitizer summaries") {
    const std::string racecheck = R"(========= COMPUTE-SANITIZER
========= Warning: Race reported between Read access at tail(const float *, float *)+0x230
=========     and Write access at tail(const float *, float *)+0x210 [4096 hazards]
=========
========= RACECHECK SUMMARY: 5 hazards displayed (0 errors, 5 warnings)
)";
    const auto r = parse_sanitizer(racecheck);
    CHECK(r.parsed);
    CHECK(r.errors == 0);
    CHECK(r.warnings == 5);
    CHECK(r.total() == 5);
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0] == "Warning: Race reported between Read access at tail(const float *, float *)+0x230");

    const std::string memcheck = R"(========= Invalid __global__ write of size 4 bytes
=========     at k(float*)+0x70
========= ERROR SUMMARY: 1 error
)";
    const auto m = parse_sanitizer(memcheck);
    CHECK(m.parsed);
    CHECK(m.errors == 1);
    CHECK(m.findings[0] == "Invalid __global__ write of size 4 bytes");
    CHECK_FALSE(parse_sanitizer("nothing to see").parsed);
}

TEST_CASE("ncu CSV: metrics summed over launches, quoted commas handled") {
    const std::string csv = R"csv(==PROF== Connected to process 520 (/tmp/probe)
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","520","probe","127.0.0.1","void ttile<0>(const float *, float *, unsigned int, unsigned int)","1","7","(32, 8, 1)","(32, 32, 1)","0","9.0","Command line profiler metrics","l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum","","1,048,576"
"0","520","probe","127.0.0.1","void ttile<0>(const float *, float *, unsigned int, unsigned int)","1","7","(32, 8, 1)","(32, 32, 1)","0","9.0","Command line profiler metrics","smsp__inst_executed_op_shared_ld.sum","inst","32,768"
"1","520","probe","127.0.0.1","void ttile<0>(const float *, float *, unsigned int, unsigned int)","1","7","(32, 8, 1)","(32, 32, 1)","0","9.0","Command line profiler metrics","smsp__inst_executed_op_shared_ld.sum","inst","32,768"
)csv";
    const ncu_metrics m = parse_ncu_csv(csv);
    CHECK(m.error == "");
    CHECK(m.launches == 2);
    CHECK(m.sums.at("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum") == 1048576.0);
    CHECK(m.sums.at("smsp__inst_executed_op_shared_ld.sum") == 65536.0);
}

TEST_CASE("ncu without permission for the counters") {
    const ncu_metrics m = parse_ncu_csv(
        "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters\n");
    CHECK(m.sums.empty());
    CHECK(m.error.rfind("==ERROR== ERR_NVGPUCTRPERM", 0) == 0);
    CHECK(parse_ncu_csv("").error == "ncu reported no metrics (was a kernel launched?)");
}

TEST_CASE("conflict factor from wavefronts and bank conflicts (H200 measurements)") {
    CHECK(shared_conflict_factor(1048576, 1015808) == 32.0);  // tile[32][32], column reads
    CHECK(shared_conflict_factor(32768, 0) == 1.0);           // tile[32][33]
    CHECK(shared_conflict_factor(32768, 16384) == 2.0);       // rows of 8 floats read as float4
    CHECK(shared_conflict_factor(24320, 17920) == 3.8);       // lab 2's strided tree, predicated steps included
    CHECK(shared_conflict_factor(0, 0) == 0.0);
}
