// The submission rules: the compiled object (nm, readelf and objdump output).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "rules_test_support.hpp"

using namespace course::rules;
using namespace rules_test;

// ---- 5. The object ----

TEST_CASE("mangled names: the first component of their scope") {
    std::string global;
    CHECK(symbol_scope("_ZN12lab3_student16reduce_first_addEPKfPfj") == "lab3_student");
    CHECK(symbol_scope("_ZN12lab3_student18reduce_full_unrollILj256EEEvPKfPfj") == "lab3_student");
    CHECK(symbol_scope("_ZZN12lab3_student16reduce_first_addEPKfPfjE7partial") == "lab3_student");
    CHECK(symbol_scope("_ZGVZN12lab3_student1fEvE1x") == "lab3_student");
    CHECK(symbol_scope("_ZNK12lab3_student3key4sizeEv") == "lab3_student");
    CHECK(symbol_scope("_ZTVN12lab3_student4baseE") == "lab3_student");
    CHECK(symbol_scope("_ZNSt6vectorIfSaIfEE9push_backERKf") == "std");
    CHECK(symbol_scope("_ZSt4cout") == "std");
    CHECK(symbol_scope("_ZN47_GLOBAL__N__6a215396_14_cg_lab3_gpu_cu_8933cd794helpEf") ==
          "_GLOBAL__N__6a215396_14_cg_lab3_gpu_cu_8933cd79");
    // A template function of the global namespace whose return type is the student's.
    CHECK(symbol_scope("_Z4evilIN12lab3_student3keyEET_v", &global) == "");
    CHECK(global == "evil");
    CHECK(symbol_scope("_Z5__ldgI6float4ET_PKS1_", &global) == "");
    CHECK(global == "__ldg");
    CHECK(symbol_scope("_Znwm", &global) == "");
    CHECK(symbol_scope("write", &global) == "");
    CHECK(global == "write");
    CHECK(demangle("_Znwm") == "operator new(unsigned long)");
    CHECK(demangle("write") == "write");
}

namespace {

// nm -P, readelf -SW, -rW, -sW and objdump -dr of nvcc's object for lab 1's reference
// (trimmed to what the rules read).
object_dump gpu_object() {
    object_dump d;
    d.nm = "DW.ref.__gxx_personality_v0 V 0 8\n"
           "_Unwind_Resume U         \n"
           "_Z56__device_stub__ZN12lab1_student16reduce_divergentEPKfPfjPKfPfj T 120 113\n"
           "_ZL24__sti____cudaRegisterAllv t 0 61\n"
           "_ZN12lab1_student16reduce_divergentEPKfPfj T 10 10b\n"
           "__cudaLaunchKernel U         \n"
           "__cudaRegisterFatBinary U         \n"
           "__cudaRegisterFunction U         \n"
           "atexit U         \n";
    d.sections = "  [ 2] .text             PROGBITS        0000000000000000 000050 000233 00  AX  0   0 16\n"
                 "  [11] .text.startup     PROGBITS        0000000000000000 001aa0 000061 00  AX  0   0 16\n"
                 "  [13] .init_array       INIT_ARRAY      0000000000000000 001b08 000008 08  WA  0   0  8\n"
                 "  [14] .rela.init_array  RELA            0000000000000000 0027a0 000018 18   I 24  13  8\n";
    d.relocations = "Relocation section '.rela.init_array' at offset 0x27a0 contains 1 entry:\n"
                    "    Offset             Info             Type               Symbol's Value  Symbol's Name + Addend\n"
                    "0000000000000000  0000001000000001 R_X86_64_64            0000000000000000 .text.startup + 0\n";
    d.symbols = "    16: 0000000000000000     0 SECTION LOCAL  DEFAULT   11 .text.startup\n"
                "    17: 0000000000000000    97 FUNC    LOCAL  DEFAULT   11 _ZL24__sti____cudaRegisterAllv\n";
    d.disassembly = "Disassembly of section .text.startup:\n\n"
                    "0000000000000000 <_ZL24__sti____cudaRegisterAllv>:\n"
                    "   0:\tsub    $0x8,%rsp\n"
                    "   b:\tcall   10 <_ZL24__sti____cudaRegisterAllv+0x10>\n"
                    "\t\t\tc: R_X86_64_PLT32\t__cudaRegisterFatBinary-0x4\n";
    return d;
}

// g++ -O3's <iostream> initializer, and what a global object's constructor adds to it.
const char* const iostream_init =
    "0000000000000000 <_GLOBAL__sub_I_x>:\n"
    "   0:\tpush   %rbx\n"
    "   1:\tlea    0x0(%rip),%rbx        # 8 <_GLOBAL__sub_I_x+0x8>\n"
    "\t\t\t4: R_X86_64_PC32\t.bss-0x4\n"
    "   8:\tmov    %rbx,%rdi\n"
    "   b:\tcall   10 <_GLOBAL__sub_I_x+0x10>\n"
    "\t\t\tc: R_X86_64_PLT32\t_ZNSt8ios_base4InitC1Ev-0x4\n"
    "  10:\tmov    0x0(%rip),%rdi        # 17 <_GLOBAL__sub_I_x+0x17>\n"
    "\t\t\t13: R_X86_64_REX_GOTPCRELX\t_ZNSt8ios_base4InitD1Ev-0x4\n"
    "  17:\tmov    %rbx,%rsi\n"
    "  1a:\tlea    0x0(%rip),%rdx        # 21 <_GLOBAL__sub_I_x+0x21>\n"
    "\t\t\t1d: R_X86_64_PC32\t__dso_handle-0x4\n"
    "  21:\tpop    %rbx\n";

object_dump emu_iostream_object(const std::string& extra_code) {
    object_dump d;
    d.nm = "_ZN12lab3_student16reduce_first_addEPKfPfj T 0 10\n_ZNSt8ios_base4InitC1Ev U\n_ZNSt8ios_base4InitD1Ev U\n"
           "__cxa_atexit U\n__dso_handle U\n";
    d.sections = "  [ 9] .text.startup     PROGBITS        0000000000000000 0000b0 00003f 00  AX  0   0 16\n"
                 "  [11] .init_array       INIT_ARRAY      0000000000000000 0000f0 000008 08  WA  0   0  8\n";
    d.relocations = "Relocation section '.rela.init_array' at offset 0x690 contains 1 entry:\n"
                    "0000000000000000  0000000500000001 R_X86_64_64            0000000000000000 .text.startup + 0\n";
    d.symbols = "    12: 0000000000000000    63 FUNC    LOCAL  DEFAULT    9 _GLOBAL__sub_I_x\n";
    d.disassembly = "Disassembly of section .text.startup:\n\n" + std::string(iostream_init) + extra_code +
                    "  22:\tjmp    27 <_GLOBAL__sub_I_x+0x27>\n\t\t\t23: R_X86_64_PLT32\t__cxa_atexit-0x4\n";
    return d;
}

}  // namespace

TEST_CASE("object: nvcc's lab object passes; anything more is refused") {
    CHECK(messages(check_object(gpu_object(), backend::gpu, "lab1_student")).empty());
    // The same object on the emulator: nvcc's registration is a constructor there.
    CHECK(messages(check_object(gpu_object(), backend::emulated, "lab1_student")).front() == "0: " + std::string(constructor));

    object_dump evil = gpu_object();
    evil.nm += "getenv U\n_Z4evilv T 0 10\n_ZNSt6vectorIfSaIfEE9push_backERKf W 0 10\n_Znwm W 0 10\n";
    CHECK(messages(check_object(evil, backend::gpu, "lab1_student")) ==
          std::vector<std::string>{"0: kernels.cu calls `getenv" + std::string(calls_tail),
                                   "0: kernels.cu defines `evil()" + std::string(defines_tail),
                                   "0: kernels.cu defines `std::vector<float, std::allocator<float> >::push_back(float const&)" +
                                       std::string(defines_tail),
                                   "0: kernels.cu defines `operator new(unsigned long)" + std::string(defines_tail)});
}

TEST_CASE("object: a second initializer on the GPU is a constructor") {
    object_dump d = gpu_object();
    d.sections = "  [11] .text.startup     PROGBITS        0000000000000000 001aa0 000061 00  AX  0   0 16\n"
                 "  [13] .init_array       INIT_ARRAY      0000000000000000 001b08 000010 08  WA  0   0  8\n";
    d.relocations += "0000000000000008  0000001000000001 R_X86_64_64            0000000000000000 .text.startup + 70\n";
    d.symbols += "    18: 0000000000000070    20 FUNC    LOCAL  DEFAULT   11 _GLOBAL__sub_I_x\n";
    d.disassembly += "\n0000000000000070 <_GLOBAL__sub_I_x>:\n"
                     "  70:\tcall   75 <_GLOBAL__sub_I_x+0x5>\n\t\t\t71: R_X86_64_PLT32\twrite-0x4\n";
    CHECK(messages(check_object(d, backend::gpu, "lab1_student")) == std::vector<std::string>{"0: " + std::string(constructor)});

    object_dump fini = gpu_object();
    fini.sections += "  [15] .fini_array       FINI_ARRAY      0000000000000000 001b10 000008 08  WA  0   0  8\n";
    CHECK(messages(check_object(fini, backend::gpu, "lab1_student")) == std::vector<std::string>{"0: " + std::string(constructor)});
    object_dump prio = gpu_object();
    prio.sections += "  [15] .init_array.00101 INIT_ARRAY      0000000000000000 001b10 000008 08  WA  0   0  8\n";
    CHECK(messages(check_object(prio, backend::gpu, "lab1_student")) == std::vector<std::string>{"0: " + std::string(constructor)});
}

TEST_CASE("object: <iostream>'s initializer passes; a call or a global write added to it does not") {
    CHECK(messages(check_object(emu_iostream_object(""), backend::emulated, "lab3_student")).empty());
    const std::string store = "  21:\tmovl   $0x5,0x0(%rip)        # 2b <_GLOBAL__sub_I_x+0x2b>\n"
                              "\t\t\t23: R_X86_64_PC32\t.bss+0x4\n";
    CHECK(messages(check_object(emu_iostream_object(store), backend::emulated, "lab3_student")) ==
          std::vector<std::string>{"0: " + std::string(constructor)});
    const std::string call = "  21:\tcall   26 <_GLOBAL__sub_I_x+0x26>\n\t\t\t22: R_X86_64_PLT32\t_ZN12lab3_student4evilEv-0x4\n";
    CHECK(messages(check_object(emu_iostream_object(call), backend::emulated, "lab3_student")) ==
          std::vector<std::string>{"0: " + std::string(constructor)});
    const std::string indirect = "  21:\tcall   *%rax\n";
    CHECK(messages(check_object(emu_iostream_object(indirect), backend::emulated, "lab3_student")) ==
          std::vector<std::string>{"0: " + std::string(constructor),
                                   "0: kernels.cu calls or jumps through a pointer (in _GLOBAL__sub_I_x): the emulator "
                                   "cannot check where such a call lands; call functions by name"});
}

TEST_CASE("object: the emulator's calls and weak instantiations") {
    object_dump d;
    d.nm = "_ZN12lab3_student16reduce_first_addEPKfPfj T 0 10\n"
           "_ZN12lab3_student18reduce_full_unrollILj256EEEvPKfPfj W 0 116\n"
           "_ZZN12lab3_student18reduce_full_unrollILj256EEEvPKfPfjE7scratch u 0 400\n"
           "_ZN3emu6detail7warp_opENS_12warp_op_kindEjmiiPKci U\n"
           "_ZN3emu6detail13block_barrierENS_12barrier_kindEiPKci U\n"
           "_ZN3emu6detail9g_currentE U\n"
           "_ZN3emu10activemaskEv U\n"
           "_ZN3emu13shfl_atIfEET_NS_12warp_op_kindEPKcijS1_ii W 0 40\n"
           "_Z5__ldgI6float4ET_PKS1_ W 0 10\n"
           "sqrtf U\nmemcpy U\nprintf U\n__stack_chk_fail U\n";
    CHECK(messages(check_object(d, backend::emulated, "lab3_student")).empty());
    d.nm += "_ZN3emu6detail8run_gridEPKc4dim3S3_NS0_11kernel_bodyE U\ncudaMalloc U\nsyscall U\n_Z4evilIiEvv W 0 10\n";
    CHECK(messages(check_object(d, backend::emulated, "lab3_student")) ==
          std::vector<std::string>{
              "0: kernels.cu calls `emu::detail::run_grid(char const*, dim3, dim3, emu::detail::kernel_body)" +
                  std::string(calls_tail),
              "0: kernels.cu calls `cudaMalloc" + std::string(calls_tail),
              "0: kernels.cu calls `syscall" + std::string(calls_tail),
              "0: kernels.cu defines `void evil<int>()" + std::string(defines_tail)});
}

TEST_CASE("object: system-call instructions and indirect functions") {
    object_dump d;
    d.nm = "_ZN12lab3_student1fEv T 0 10\n_ZN12lab3_student6pickedEv i 0 10\n";
    d.disassembly = "Disassembly of section .text:\n\n0000000000000000 <_ZN12lab3_student1fEv>:\n"
                    "   0:\tmov    $0x1,%eax\n   5:\tsyscall\n   7:\tret\n";
    CHECK(messages(check_object(d, backend::emulated, "lab3_student")) ==
          std::vector<std::string>{"0: " + std::string(constructor),
                                   "0: kernels.cu makes a system call (`syscall` in lab3_student::f()): lab files may not "
                                   "talk to the operating system"});
}

TEST_CASE("object: NVTX's loader may be called only from NVTX's own functions (CUB brings them)") {
    object_dump d = gpu_object();
    d.nm += "nvtxMarkA_impl_init_v3 W 0 11a\nnvtxGlobals_v3 V 0 490\nInitializeInjectionNvtx2_fnptr V 0 8\n"
            "_ZN4cuda3std3__48in_placeE u 0 1\ndlsym U\ngetenv U\n";
    d.relocations += "Relocation section '.rela.text.nvtxMarkA_impl_init_v3' at offset 0x1 contains 2 entries:\n"
                     "0000000000000010  0000002900000004 R_X86_64_PLT32         0000000000000000 dlsym - 4\n"
                     "0000000000000020  0000002900000004 R_X86_64_PLT32         0000000000000000 getenv - 4\n";
    CHECK(messages(check_object(d, backend::gpu, "lab1_student")).empty());
    d.relocations += "Relocation section '.rela.text' at offset 0x2 contains 1 entry:\n"
                     "0000000000000030  0000002900000004 R_X86_64_PLT32         0000000000000000 getenv - 4\n";
    CHECK(messages(check_object(d, backend::gpu, "lab1_student")) ==
          std::vector<std::string>{"0: kernels.cu calls `getenv" + std::string(calls_tail)});
}

namespace {

// g++ -O3 -fsanitize=thread's emulated lab object (the emulator's memory tracing): the
// module constructor in .init_array.00099 and the callbacks, as readelf and objdump show
// them; `ctor` is the constructor's code.
object_dump emu_traced_object(const std::string& ctor) {
    object_dump d;
    d.nm = "_ZN12lab1_student16reduce_divergentEPKfPfj T 0 1b3\n"
           "_ZZN12lab1_student16reduce_divergentEPKfPfjE7partial b 0 400\n"
           "_sub_I_00099_0 t 0 5\n"
           "_ZN3emu6detail13block_barrierENS_12barrier_kindEiPKci U\n"
           "_ZN3emu6detail9g_currentE U\n"
           "_ZN3emu6detail12trace_atomicEPVKvj U\n"
           "__tsan_init U\n__tsan_read4 U\n__tsan_read8 U\n__tsan_write4 U\n__tsan_unaligned_read16 U\n"
           "__tsan_read_range U\n__tsan_write_range U\n";
    d.sections = "  [10] .text.startup     PROGBITS        0000000000000000 000280 000005 00  AX  0   0 16\n"
                 "  [12] .init_array.00099 INIT_ARRAY      0000000000000000 000288 000008 08  WA  0   0  8\n"
                 "  [13] .rela.init_array.00099 RELA            0000000000000000 0059d0 000018 18   I 33  12  8\n";
    d.relocations = "Relocation section '.rela.init_array.00099' at offset 0x59d0 contains 1 entry:\n"
                    "    Offset             Info             Type               Symbol's Value  Symbol's Name + Addend\n"
                    "0000000000000000  0000000a00000001 R_X86_64_64            0000000000000000 .text.startup + 0\n";
    d.symbols = "    10: 0000000000000000     0 SECTION LOCAL  DEFAULT   10 .text.startup\n"
                "    11: 0000000000000000     5 FUNC    LOCAL  DEFAULT   10 _sub_I_00099_0\n";
    d.disassembly = "Disassembly of section .text.startup:\n\n0000000000000000 <_sub_I_00099_0>:\n" + ctor;
    return d;
}

const char* const tsan_ctor_o3 = "   0:\tjmp    5 <_sub_I_00099_0+0x5>\n\t\t\t1: R_X86_64_PLT32\t__tsan_init-0x4\n";
const char* const tsan_ctor_o0 = "   0:\tpush   %rbp\n   1:\tmov    %rsp,%rbp\n"
                                 "   4:\tcall   9 <_sub_I_00099_0+0x9>\n\t\t\t5: R_X86_64_PLT32\t__tsan_init-0x4\n"
                                 "   9:\tpop    %rbp\n   a:\tret\n";

}  // namespace

TEST_CASE("object: the emulator's memory tracing (-fsanitize=thread) passes, and nothing more") {
    CHECK(messages(check_object(emu_traced_object(tsan_ctor_o3), backend::emulated, "lab1_student")).empty());
    CHECK(messages(check_object(emu_traced_object(tsan_ctor_o0), backend::emulated, "lab1_student")).empty());
    // Not on the GPU, whose objects have no such constructor.
    CHECK(messages(check_object(emu_traced_object(tsan_ctor_o3), backend::gpu, "lab1_student")).front() ==
          "0: " + std::string(constructor));

    // A constructor that calls anything else, calls __tsan_init twice, stores, or jumps
    // through a register is the file's own.
    const std::string other = "   0:\tcall   5 <_sub_I_00099_0+0x5>\n\t\t\t1: R_X86_64_PLT32\t_ZN12lab1_student4evilEv-0x4\n"
                              "   5:\tjmp    a <_sub_I_00099_0+0xa>\n\t\t\t6: R_X86_64_PLT32\t__tsan_init-0x4\n";
    const std::string twice = std::string(tsan_ctor_o0) + "   b:\tcall   10 <_sub_I_00099_0+0x10>\n"
                                                         "\t\t\tc: R_X86_64_PLT32\t__tsan_init-0x4\n";
    const std::string store = "   0:\tmovl   $0x5,0x0(%rip)        # a <_sub_I_00099_0+0xa>\n\t\t\t2: R_X86_64_PC32\t.bss-0x8\n" +
                              std::string(tsan_ctor_o3);
    const std::string indirect = "   0:\tjmp    *%rax\n";
    for (const std::string& ctor : {other, twice, store}) {
        CAPTURE(ctor);
        CHECK(messages(check_object(emu_traced_object(ctor), backend::emulated, "lab1_student")) ==
              std::vector<std::string>{"0: " + std::string(constructor)});
    }
    // A jump through a register is also a branch the emulator cannot check.
    CHECK(messages(check_object(emu_traced_object(indirect), backend::emulated, "lab1_student")) ==
          std::vector<std::string>{"0: " + std::string(constructor),
                                   "0: kernels.cu calls or jumps through a pointer (in _sub_I_00099_0): the emulator "
                                   "cannot check where such a call lands; call functions by name"});
    // A second entry in the sanitizer's section, or another priority.
    object_dump two = emu_traced_object(tsan_ctor_o3);
    two.sections = "  [12] .init_array.00099 INIT_ARRAY      0000000000000000 000288 000010 08  WA  0   0  8\n";
    CHECK(messages(check_object(two, backend::emulated, "lab1_student")) == std::vector<std::string>{"0: " + std::string(constructor)});
    object_dump prio = emu_traced_object(tsan_ctor_o3);
    prio.sections = "  [12] .init_array.00098 INIT_ARRAY      0000000000000000 000288 000008 08  WA  0   0  8\n";
    CHECK(messages(check_object(prio, backend::emulated, "lab1_student")) == std::vector<std::string>{"0: " + std::string(constructor)});

    // The callbacks are allowed by name; other sanitizer entry points are not.
    object_dump more = emu_traced_object(tsan_ctor_o3);
    more.nm += "__tsan_atomic32_fetch_add U\n__tsan_func_entry U\n__asan_report_load4 U\n";
    CHECK(messages(check_object(more, backend::emulated, "lab1_student")) ==
          std::vector<std::string>{"0: kernels.cu calls `__tsan_atomic32_fetch_add" + std::string(calls_tail),
                                   "0: kernels.cu calls `__tsan_func_entry" + std::string(calls_tail),
                                   "0: kernels.cu calls `__asan_report_load4" + std::string(calls_tail)});
}

#include "rules/rules_object_flow.hpp"

TEST_CASE("object: the edits that make an emulated lab object ready to link") {
    const std::string sections =
        "  [ 2] .text             PROGBITS        0000000000000000 000040 000300 00  AX  0   0 16\n"
        "  [ 5] .data             PROGBITS        0000000000000000 00048b 000004 00  WA  0   0  4\n"
        "  [ 6] .bss              NOBITS          0000000000000000 00048b 000010 00  WA  0   0  4\n"
        "  [10] .bss._ZZN12lab3_student18reduce_full_unrollILj256EEEvPKfPfjE7scratch NOBITS 0000000000000000 000760 "
        "000400 00 WAG  0   0 32\n"
        "  [11] emu_shared        PROGBITS        0000000000000000 000760 000800 00  WA  0   0 32\n"
        "  [12] .data.rel.ro.local PROGBITS       0000000000000000 000f60 000008 00  WA  0   0  8\n"
        "  [13] .bss._ZZSt3minIfERKT_S2_S2_E1x NOBITS 0000000000000000 000f68 000004 00 WAG  0   0  4\n";
    const std::string nm = "_ZN12lab3_student16reduce_first_addEPKfPfj T 0 80\n"
                           "_ZN12lab3_student18reduce_full_unrollILj256EEEvPKfPfj W 100 200\n"
                           "_ZNSt6vectorIfSaIfEE9push_backERKf W 300 40\n"
                           "DW.ref.__gxx_personality_v0 V 0 8\n"
                           "printf U\n";
    // A student's object: its own data into the emulator's sections (not std's static, not
    // the relocated constants), its C library calls to the checked versions, its copies of
    // other namespaces' templates renamed.
    std::vector<std::string> expected = {"--rename-section", ".data=emu_static_data", "--rename-section",
                                         ".bss=emu_static", "--rename-section",
                                         ".bss._ZZN12lab3_student18reduce_full_unrollILj256EEEvPKfPfjE7scratch=emu_local"};
    for (const auto& [name, shim] : detail::emulated_libc_shims()) {
        expected.push_back("--redefine-sym");
        expected.push_back(name + "=" + shim);
    }
    for (const char* weak : {"_ZNSt6vectorIfSaIfEE9push_backERKf", "DW.ref.__gxx_personality_v0"}) {
        expected.push_back("--redefine-sym");
        expected.push_back(std::string(weak) + "=" + weak + ".lab_file");
    }
    CHECK(detail::emulated_object_edits(sections, nm, "lab3_student", true) == expected);
    CHECK(detail::emulated_libc_shims().front() == std::pair<std::string, std::string>{"memcpy", "course_emu_memcpy"});
    // One per grid (shared by a launch's processes) unless a function's static local.
    CHECK(detail::data_section(true, false) == "emu_static");
    CHECK(detail::data_section(false, false) == "emu_static_data");
    CHECK(detail::data_section(true, true) == "emu_local");
    CHECK(detail::data_section(false, true) == "emu_local_data");
    CHECK(detail::emulated_object_edits("  [ 5] .data._ZZN12lab3_student1kEvE5table PROGBITS 0000000000000000 000040 "
                                        "000010 00  WA  0   0  4\n",
                                        "", "", false) ==
          std::vector<std::string>{"--rename-section", ".data._ZZN12lab3_student1kEvE5table=emu_local_data"});
    // The course's own object: every function's statics move (the course wrote them all).
    CHECK(detail::emulated_object_edits(sections, "", "", false) ==
          std::vector<std::string>{"--rename-section", ".data=emu_static_data", "--rename-section", ".bss=emu_static",
                                   "--rename-section",
                                   ".bss._ZZN12lab3_student18reduce_full_unrollILj256EEEvPKfPfjE7scratch=emu_local",
                                   "--rename-section", ".bss._ZZSt3minIfERKT_S2_S2_E1x=emu_local"});
}

TEST_CASE("object: on the emulator, the stack pointer moves only by a fixed frame") {
    const auto object_with = [](const std::string& body) {
        course::rules::object_dump d;
        d.nm = "_ZN12lab1_student16reduce_divergentEPKfPfj T 0 40\n";
        d.disassembly = "0000000000000000 <_ZN12lab1_student16reduce_divergentEPKfPfj>:\n" + body;
        return d;
    };
    const std::string fixed = "   0:\tpush   %rbp\n   1:\tmov    %rsp,%rbp\n   4:\tsub    $0x40,%rsp\n"
                              "   8:\tand    $0xffffffffffffffe0,%rsp\n   c:\tlea    -0x8(%rbp),%rsp\n  10:\tleave\n"
                              "  11:\tret\n";
    CHECK(messages(check_object(object_with(fixed), backend::emulated, "lab1_student")).empty());
    CHECK(messages(check_object(object_with("   0:\tsub    %rax,%rsp\n"), backend::emulated, "lab1_student")) ==
          std::vector<std::string>{"0: kernels.cu moves its stack pointer by an amount known only when it runs (a "
                                   "variable-length array or alloca?): a lab file's stack frames must have fixed sizes "
                                   "(in lab1_student::reduce_divergent(float const*, float*, unsigned int))"});
    CHECK(messages(check_object(object_with("   0:\tsub    $0x10000,%rsp\n"), backend::emulated, "lab1_student")) ==
          std::vector<std::string>{"0: kernels.cu makes a stack frame of 65536 bytes: the emulator's threads have 64 KiB "
                                   "of stack; keep large arrays in __shared__ or device memory (in "
                                   "lab1_student::reduce_divergent(float const*, float*, unsigned int))"});
}
