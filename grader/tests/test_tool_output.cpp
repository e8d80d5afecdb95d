#include <doctest/doctest.h>

#include "core/policy.hpp"
#include "core/tool_output.hpp"

using namespace course;

namespace {

// The default policy's rules, as an instructor would write them.
std::vector<library_rule> default_rules() { return load_policy("").forbidden_libraries; }

}  // namespace

TEST_CASE("forbidden libraries: includes, code and symbols, never comments or strings") {
    const std::string src = "// uses cub::DeviceReduce in a comment only\n"    // 1
                            "#include \"contracts/lab4.cuh\"\n"                  // 2
                            "  #include <cub/cub.cuh>\n"                          // 3
                            "#include <thrust/reduce.h>\n"                        // 4
                            "/* cg::reduce(tile, v, plus)\n"                      // 5
                            "   #include <cooperative_groups/reduce.h> */\n"      // 6
                            "const char* s = \"cg::reduce\";\n"                   // 7
                            "v = cg::reduce(tile, v, cg::plus<float>());\n";      // 8
    const std::string nm = "0000000000000000 T _Z3fooPKf\n                 U cub::CUB_300000_SM_900::DeviceReduce\n";
    const auto found = forbidden_library_uses(src, nm, default_rules());
    REQUIRE(found.size() == 4);
    CHECK(found[0] == "CUB: line 3: #include <cub/cub.cuh> (an include counts even when nothing from it is called: remove it if you do not use it)");
    CHECK(found[1] == "Thrust: line 4: #include <thrust/reduce.h> (an include counts even when nothing from it is called: remove it if you do not use it)");
    CHECK(found[2] == "cooperative groups' reduce: line 8: v = cg::reduce(tile, v, cg::plus<float>());");
    CHECK(found[3] == "CUB: symbol cub::CUB_300000_SM_900::DeviceReduce");
    CHECK(forbidden_library_uses("#include \"contracts/lab4.cuh\"\n", "", default_rules()).empty());
}

TEST_CASE("forbidden libraries: the header finds cg::reduce under any alias, and absolute paths") {
    const auto found = forbidden_library_uses(
        "#include </usr/local/cuda/include/cooperative_groups/reduce.h>\nnamespace coop = cooperative_groups;\n"
        "v = coop::reduce(t, v, coop::plus<float>());\n#define LIB <cub/cub.cuh>\nusing namespace thrust;\n",
        "", default_rules());
    REQUIRE(found.size() == 3);
    CHECK(found[0] == "cooperative groups' reduce: line 1: #include </usr/local/cuda/include/cooperative_groups/reduce.h> (an include counts even when nothing from it is called: remove it if you do not use it)");
    CHECK(found[1] == "CUB: line 4: #define LIB <cub/cub.cuh> (an include counts even when nothing from it is called: remove it if you do not use it)");
    CHECK(found[2] == "Thrust: line 5: using namespace thrust;");
    // Cooperative groups themselves are allowed: a tile's shfl_down is a shuffle.
    CHECK(forbidden_library_uses("#include <cooperative_groups.h>\nv += tile.shfl_down(v, 16);\n"
                                 "float reduce(float v);\nint cubic = 1'000;\n",
                                 "", default_rules())
              .empty());
}

TEST_CASE("forbidden libraries: an instructor's rule, and the symbol of a cg::reduce instance") {
    const std::vector<library_rule> rules = {{"my lib", "^mylib/", "\\bmylib::", "\\bmylib::"}};
    const auto found = forbidden_library_uses("#include <mylib/sum.h>\n", "                 U mylib::sum(float)\n", rules);
    REQUIRE(found.size() == 2);
    CHECK(found[0] == "my lib: line 1: #include <mylib/sum.h> (an include counts even when nothing from it is called: remove it if you do not use it)");
    CHECK(found[1] == "my lib: symbol mylib::sum(float)");
    const auto cg = forbidden_library_uses(
        "", "0000000000000040 W float cooperative_groups::__v1::reduce<float>(float)\n", default_rules());
    REQUIRE(cg.size() == 1);
    CHECK(cg[0] == "cooperative groups' reduce: symbol float cooperative_groups::__v1::reduce<float>(float)");
}

TEST_CASE("comments and strings are blanked, line breaks and code kept") {
    CHECK(blank_comments_and_strings("a // b\nc /* d\ne */ f \"g\\\"h\" 'i' 1'0 R\"x(j)\")x\" k") ==
          "a     \nc     \n     f \"    \" ' ' 1'0 R\"       \" k");
}

// Trimmed from `cuobjdump -sass` of grader/tests/submissions/shuffle_elsewhere (nvcc 13.0,
// sm_90, no -rdc): the draft kernel calls its out-of-line warp_sum inside its own section.
const char* const whole_program_sass = R"sass(
	code for sm_90
		Function : _ZN12lab4_student17reduce_vectorizedEPKfPfj
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                                   /* 0x00000a00ff017b82 */
                                                                                            /* 0x000fe20000000800 */
        /*0280*/                   SHFL.DOWN PT, R5, R10, 0x10, 0x1f ;                      /* 0x0a001f000a057f89 */
		..........


		Function : _ZN12lab4_student20reduce_shuffle_draftEPKfPfj
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0160*/                   MOV R10, 0x180 ;                                         /* 0x00000180000a7802 */
        /*0170*/                   CALL.REL.NOINC 0x1e0 ;                                   /* 0x0000000000187944 */
        /*0190*/               @P0 EXIT ;                                                   /* 0x000000000000094d */
        /*01e0*/                   SHFL.DOWN PT, R3, R6, 0x10, 0x1f ;                       /* 0x0a001f0006037f89 */
        /*02a0*/                   RET.REL.NODEC R2 0x0 ;                                   /* 0xfffffffc02547950 */
		..........


		Function : _ZN12lab4_student14reduce_shuffleEPKfPfj
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                                   /* 0x00000a00ff017b82 */
        /*0060*/                   BSSY B0, 0x160 ;                                         /* 0x000000f000007945 */
        /*0300*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;                            /* 0x0000000000007b1d */
        /*0400*/                   EXIT ;                                                   /* 0x000000000000794d */
)sass";

TEST_CASE("SASS: functions, instructions and calls of a whole-program object") {
    const sass_program p = parse_sass(whole_program_sass);
    REQUIRE(p.size() == 3);
    const auto& draft = p.at("_ZN12lab4_student20reduce_shuffle_draftEPKfPfj");
    REQUIRE(draft.instructions.size() == 5);
    CHECK(draft.instructions[1] == "CALL.REL.NOINC 0x1e0");
    CHECK(draft.instructions[2] == "@P0 EXIT");
    CHECK(draft.callees.empty());  // a relative call stays inside the section
    CHECK_FALSE(draft.calls_elsewhere);
}

TEST_CASE("SASS: a shuffle in a kernel the course never launches does not count") {
    const sass_program p = parse_sass(whole_program_sass);
    const std::string a = mangled_prefix("lab4_student", "reduce_shuffle");
    CHECK(a == "_ZN12lab4_student14reduce_shuffle");
    // reduce_shuffle_draft starts with the same letters but is another function.
    CHECK(reachable_functions(p, a) == std::set<std::string>{"_ZN12lab4_student14reduce_shuffleEPKfPfj"});
    std::vector<std::string> elsewhere;
    CHECK(find_in_sass(p, a, "SHFL", &elsewhere) == sass_search::not_found);
    CHECK(elsewhere == std::vector<std::string>{"_ZN12lab4_student17reduce_vectorizedEPKfPfj",
                                                 "_ZN12lab4_student20reduce_shuffle_draftEPKfPfj"});
    CHECK(find_in_sass(p, mangled_prefix("lab4_student", "reduce_vectorized"), "SHFL") == sass_search::found);
    CHECK(find_in_sass(p, mangled_prefix("lab4_student", "reduce_missing"), "SHFL") == sass_search::no_such_function);
    CHECK(demangle("_ZN12lab4_student20reduce_shuffle_draftEPKfPfj") ==
          "lab4_student::reduce_shuffle_draft(float const*, float*, unsigned int)");
    CHECK(demangle("not mangled") == "not mangled");
}

// Trimmed from `cuobjdump -sass` and `cuobjdump -elf` of a file compiled with -rdc=true
// (nvcc 13.0, sm_90): every __noinline__ function has its own section, and a call names
// its target only in the caller's relocation section.
const char* const rdc_sass = R"(
		Function : _ZN12lab4_student13unused_helperEf
        /*0020*/                   SHFL.BFLY PT, R4, R4, 0x1, 0x1f ;                    /* 0x0c201f0004047f89 */
        /*00d0*/                   RET.ABS.NODEC R20 0x0 ;                              /* 0x0000000014007950 */
		Function : _ZN12lab4_student12extra_kernelEPKfPfj
        /*0080*/                   CALL.ABS.NOINC 0x0 ;                                 /* 0x0000000000007943 */
		Function : _ZN12lab4_student8warp_sumEf
        /*0020*/                   SHFL.DOWN PT, R14, R4, 0x10, 0x1f ;                  /* 0x0a001f00040e7f89 */
		Function : _ZN12lab4_student5outerEf
        /*0050*/                   CALL.ABS.NOINC 0x0 ;                                 /* 0x0000000000007943 */
		Function : _ZN12lab4_student14reduce_shuffleEPKfPfj
        /*00e0*/                   CALL.ABS.NOINC 0x0 ;                                 /* 0x0000000000007943 */
)";
const char* const rdc_elf = R"(
.section .rela.text._ZN12lab4_student12extra_kernelEPKfPfj	RELA
0x80    _ZN12lab4_student13unused_helperEf    R_CUDA_ABS55_16_34    0x0
0x70    _ZN12lab4_student12extra_kernelEPKfPfj    R_CUDA_ABS32_HI_32    0x90


.text._ZN12lab4_student8warp_sumEf
lmem=0	smem=0
0x00047882 0xffffffff 0x00000000 0x000fc600


.section .rela.text._ZN12lab4_student5outerEf	RELA
0x50    _ZN12lab4_student8warp_sumEf    R_CUDA_ABS55_16_34    0x0
0x40    _ZN12lab4_student5outerEf    R_CUDA_ABS32_HI_32    0x60


.section .rela.text._ZN12lab4_student14reduce_shuffleEPKfPfj	RELA
0xe0    _ZN12lab4_student5outerEf    R_CUDA_ABS55_16_34    0x0
0xd0    _ZN12lab4_student14reduce_shuffleEPKfPfj    R_CUDA_ABS32_HI_32    0xf0
)";

TEST_CASE("SASS: relocatable device code follows the calls its relocations name") {
    sass_program p = parse_sass(rdc_sass);
    const std::string a = mangled_prefix("lab4_student", "reduce_shuffle");
    CHECK(p.at("_ZN12lab4_student14reduce_shuffleEPKfPfj").calls_elsewhere);
    CHECK(find_in_sass(p, a, "SHFL") == sass_search::not_found);  // the calls are not known yet
    add_relocated_calls(p, rdc_elf);
    CHECK(p.at("_ZN12lab4_student5outerEf").callees == std::set<std::string>{"_ZN12lab4_student8warp_sumEf"});
    CHECK(reachable_functions(p, a) == std::set<std::string>{"_ZN12lab4_student14reduce_shuffleEPKfPfj",
                                                             "_ZN12lab4_student5outerEf",
                                                             "_ZN12lab4_student8warp_sumEf"});
    std::vector<std::string> elsewhere;
    CHECK(find_in_sass(p, a, "SHFL", &elsewhere) == sass_search::found);
    CHECK(elsewhere == std::vector<std::string>{"_ZN12lab4_student13unused_helperEf"});
}

TEST_CASE("SASS: a call that names its target, and template kernels") {
    const sass_program p = parse_sass(R"(
		Function : _ZN12lab4_student8warp_sumEf
        /*0000*/                   SHFL.BFLY PT, R3, R4, 0x1, 0x1f ;
		Function : _ZN12lab4_student14reduce_shuffleEPKfPfj
        /*0100*/                   CALL.REL.NOINC `(_ZN12lab4_student8warp_sumEf) ;
		Function : _ZN12lab3_student18reduce_full_unrollILj256EEvPKfPfj
        /*0000*/               @!P0 SHFL.DOWN PT, R3, R4, 0x1, 0x1f ;
)");
    CHECK(find_in_sass(p, mangled_prefix("lab4_student", "reduce_shuffle"), "SHFL") == sass_search::found);
    CHECK(find_in_sass(p, mangled_prefix("lab3_student", "reduce_full_unroll"), "SHFL") == sass_search::found);
    CHECK(find_in_sass(p, mangled_prefix("lab3_student", "reduce_full_unroll"), "SHF") == sass_search::not_found);
}

TEST_CASE("racecheck hazard reports are pinned on the kernel they name") {
    // compute-sanitizer 2025.3.1 on an H200 (the racy_tail submission, --show-backtrace no),
    // with a report of another function added.
    const std::string out = R"(========= COMPUTE-SANITIZER
========= Warning: (Warp Level Programming) Potential RAW hazard detected at __shared__ 0x440 in block (0,0,0) :
=========     Write Thread (16,0,0) at lab3_student::reduce_warp_unrolled(const float *, float *, unsigned int)+0x2d0
=========     Read Thread (0,0,0) at lab3_student::reduce_warp_unrolled(const float *, float *, unsigned int)+0x2f0
=========     Current Value : 148
========= 
========= Warning: (Warp Level Programming) Potential RAW hazard detected at __shared__ 0x444 in block (0,0,0) :
=========     Write Thread (17,0,0) at lab3_student::reduce_warp_unrolled(const float *, float *, unsigned int)+0x2d0
=========     Read Thread (1,0,0) at lab3_student::reduce_warp_unrolled(const float *, float *, unsigned int)+0x2f0
=========     Current Value : 151
========= 
the worker's own line, ignored
========= Error: Race reported between Write access at 0x1f0 in helper(float *)
=========     and Read access at 0x230 in helper(float *) [64 hazards]
========= 
========= RACECHECK SUMMARY: 3 hazards displayed (1 error, 22704 warnings)
)";
    const auto r = parse_racecheck(out, {"lab3_student::reduce_warp_unrolled", "lab3_student::reduce_full_unroll"});
    CHECK(r.parsed);
    CHECK(r.displayed == 3);
    CHECK(r.found == 22705);
    REQUIRE(r.by_kernel.size() == 1);
    const auto& b = r.by_kernel.at("lab3_student::reduce_warp_unrolled");
    CHECK(b.reports == 2);
    CHECK(b.hazards == 2);
    CHECK(b.first ==
          "Warning: (Warp Level Programming) Potential RAW hazard detected at __shared__ 0x440 in block (0,0,0)");
    CHECK(r.unattributed == 1);
    CHECK(r.first_unattributed == "Error: Race reported between Write access at 0x1f0 in helper(float *)");

    const auto clean = parse_racecheck("========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n",
                                       {"lab3_student::reduce_warp_unrolled"});
    CHECK(clean.parsed);
    CHECK(clean.by_kernel.empty());
    CHECK(clean.unattributed == 0);
    CHECK_FALSE(parse_racecheck("========= Error: Device not supported\n", {}).parsed);
}

TEST_CASE("racecheck analysis reports count their hazards") {
    const auto r = parse_racecheck(R"(========= Warning: Race reported between Read access at lab4_student::reduce_shuffle(const float *, float *, unsigned int)+0x230
=========     and Write access at lab4_student::reduce_shuffle(const float *, float *, unsigned int)+0x210 [4096 hazards]
=========     and Write access at lab4_student::reduce_shuffle(const float *, float *, unsigned int)+0x250 [32 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)
)",
                                   {"lab4_student::reduce_shuffle"});
    CHECK(r.displayed == 1);
    CHECK(r.by_kernel.at("lab4_student::reduce_shuffle").hazards == 4128);
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
