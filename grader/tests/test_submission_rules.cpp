#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/submission_rules.hpp"

using namespace course::rules;

namespace doctest {
// Failures print the lists they compare.
template <>
struct StringMaker<std::vector<std::string>> {
    static String convert(const std::vector<std::string>& v) {
        std::string out = "{";
        for (const auto& s : v) out += "\n  \"" + s + "\"";
        return (out + "\n}").c_str();
    }
};
}  // namespace doctest

namespace {

std::vector<std::string> messages(const std::vector<finding>& found) {
    std::vector<std::string> out;
    for (const auto& f : found) out.push_back(std::to_string(f.line) + ": " + f.message);
    return out;
}

const auto student = [](const std::string& file) { return file == "/c/labs/lab3_unrolled/kernels.cu"; };

const char* const calls_tail = "`: kernels may call only device code and the CUDA built-ins";
const char* const defines_tail = "` outside namespace LAB_IMPL: a lab file may define only its kernels and helpers";
const char* const constructor =
    "kernels.cu has a constructor or initializer of its own: lab files may hold no host code that runs by itself";

}  // namespace

// ---- 1. Directives ----

TEST_CASE("directives: the contract, standard and CUDA headers and unroll pragmas pass") {
    const std::string src = R"(// Lab 3.
#include "contracts/lab3.cuh"
#include <cub/block/block_reduce.cuh>
  #  include <c++/12/cmath>  // a comment after the name
#define STR(x) #x
#define CAT(a, b) a##b
#if defined(COURSE_EMULATE)
#pragma once
#endif
namespace LAB_IMPL {
__global__ void k(float* out) {
#pragma unroll
    for (int i = 0; i < 4; ++i) out[i] = 0;
#pragma unroll 4
#pragma unroll (lab3::block_size / 64)
#pragma nounroll
#pragma GCC unroll 8
    const char* s = "#include </etc/passwd>";
    const char* r = R"x(
#include "/etc/passwd"
#pragma weak f
)x";
    const unsigned big = 1'000'000;
}
}
)";
    CHECK(messages(scan_directives(src)).empty());
}

TEST_CASE("directives: absolute paths, .., macros and other include forms are refused") {
    const std::string src = "#include \"/etc/passwd\"\n"
                            "#include <../../solutions/lab3_unrolled/kernels.cu>\n"
                            "#define SECRET </etc/hostname>\n"
                            "#include SECRET\n"
                            "#include_next <cmath>\n"
                            "#import \"x.h\"\n"
                            "#include \"a b.h\"\n"
                            "#include \"x.h\" junk\n"
                            "#line 1 \"/usr/include/stdio.h\"\n"
                            "# 7 \"/usr/include/stdio.h\"\n";
    CHECK(messages(scan_directives(src)) ==
          std::vector<std::string>{
              "1: #include of \"/etc/passwd\" is not allowed: an absolute path",
              "2: #include of <../../solutions/lab3_unrolled/kernels.cu> is not allowed: `..` in the path",
              "4: #include must name a header in quotes or angle brackets, not a macro",
              "5: `#include_next` is not allowed in lab files",
              "6: `#import` is not allowed in lab files",
              "7: #include of \"a b.h\" is not allowed: a character other than letters, digits and _ . / + -",
              "8: #include has more text after its header name",
              "9: `#line` is not allowed in lab files",
              "10: line markers (`# 7`) are not allowed in lab files"});
}

TEST_CASE("directives: pragmas other than unroll and once are refused, and so is _Pragma") {
    const std::string src = "#pragma weak course_hijacked_symbol\n"
                            "#pragma GCC visibility push(default)\n"
                            "#pragma push_macro(\"LAB_IMPL\")\n"
                            "#pragma unroll \"4\"\n"
                            "_Pragma(\"redefine_extname write my_write\")\n";
    const char* tail = "` is not allowed in lab files (only #pragma unroll, nounroll, once and GCC unroll)";
    CHECK(messages(scan_directives(src)) ==
          std::vector<std::string>{"1: `#pragma weak" + std::string(tail), "2: `#pragma GCC visibility" + std::string(tail),
                                   "3: `#pragma push_macro" + std::string(tail), "4: `#pragma unroll" + std::string(tail),
                                   "5: `_Pragma` is not allowed in lab files"});
}

TEST_CASE("directives: splices, comments and digraphs are read as the preprocessor reads them") {
    const std::string src = "%:include \"/etc/passwd\"\n"       // the digraph of #
                            "#\\\ninclude </etc/hostname>\n"     // a spliced line
                            "#\\   \r\ninclude </etc/group>\n"   // backslash, blanks, CRLF: still a splice
                            "/* c */ # /* spans\n*/ include \"/etc/shadow\"\n"
                            "// a comment \\\n#include \"/etc/hidden\"\n";  // spliced into the comment: no directive
    CHECK(messages(scan_directives(src)) ==
          std::vector<std::string>{"1: #include of \"/etc/passwd\" is not allowed: an absolute path",
                                   "2: #include of </etc/hostname> is not allowed: an absolute path",
                                   "4: #include of </etc/group> is not allowed: an absolute path",
                                   "6: #include of \"/etc/shadow\" is not allowed: an absolute path"});
}

TEST_CASE("directives: a raw string opened in a directive ends with its line") {
    // GCC ends the directive (and the unterminated raw string) at the newline, so the next
    // line is a real #include.
    const std::string src = "#define X R\"(\n#include \"/etc/hostname\"\n)\"\n";
    CHECK(messages(scan_directives(src)) ==
          std::vector<std::string>{"2: #include of \"/etc/hostname\" is not allowed: an absolute path"});
}

TEST_CASE("directives: no # outside a directive, and none in an object-like macro") {
    const std::string src = "#define H #\n"
                            "#define S(x) #x\n"
                            "#define T(x) # 1\n"
                            "H 1 \"/usr/include/stdio.h\"\n"
                            "int a = 1; # 2\n"
                            "%: 3\n";
    CHECK(messages(scan_directives(src)) ==
          std::vector<std::string>{"1: a `#` that is not a stringizing operator is not allowed in lab files",
                                   "3: a `#` that is not a stringizing operator is not allowed in lab files",
                                   "5: a `#` outside a preprocessor directive is not allowed in lab files",
                                   "6: line markers (`# 3`) are not allowed in lab files"});
}

// ---- 2. Compile commands and dependencies ----

TEST_CASE("compile commands: the passes drop the object and the dependency flags") {
    const std::vector<std::string> nvcc = {"/usr/local/cuda/bin/nvcc", "-I/c/common", "-O3", "-std=c++17",
                                           "-MD", "-MT", "obj.o", "-MF", "obj.o.d", "-x", "cu",
                                           "-c", "/b/gen/lab3_student_labs_gpu.cu", "-o", "obj.o"};
    const compile_command cc = split_compile_command(nvcc);
    CHECK(cc.output == "obj.o");
    CHECK(cc.input == "/b/gen/lab3_student_labs_gpu.cu");
    CHECK(cc.args == std::vector<std::string>{"/usr/local/cuda/bin/nvcc", "-I/c/common", "-O3", "-std=c++17", "-x",
                                              "cu", "/b/gen/lab3_student_labs_gpu.cu"});
    CHECK(family_of(nvcc[0]) == compiler_family::nvcc);
    CHECK(dependency_command(cc, compiler_family::nvcc, "/t/deps.d").back() == "/t/deps.d");
    CHECK(preprocess_command(cc, compiler_family::nvcc, "/t/h.ii", true) ==
          std::vector<std::string>{"/usr/local/cuda/bin/nvcc", "-I/c/common", "-O3", "-std=c++17", "-x", "cu",
                                   "/b/gen/lab3_student_labs_gpu.cu", "-U__CUDA_ARCH__",
                                   "-UCUDA_DOUBLE_MATH_FUNCTIONS", "-E", "-o", "/t/h.ii"});

    const std::vector<std::string> gxx = {"/usr/bin/c++", "-DCOURSE_EMULATE", "-ofoo.o", "-MMD", "-MFfoo.d",
                                          "-c", "w.cpp"};
    const compile_command g = split_compile_command(gxx);
    CHECK(g.output == "foo.o");
    CHECK(g.input == "w.cpp");
    CHECK(family_of(gxx[0]) == compiler_family::gcc);
    CHECK(dependency_command(g, compiler_family::gcc, "d") ==
          std::vector<std::string>{"/usr/bin/c++", "-DCOURSE_EMULATE", "w.cpp", "-M", "-MF", "d", "-MG"});
    CHECK(preprocess_command(g, compiler_family::gcc, "p.ii", false) ==
          std::vector<std::string>{"/usr/bin/c++", "-DCOURSE_EMULATE", "w.cpp", "-E", "-o", "p.ii"});
}

TEST_CASE("make rules: continuations, escaped spaces and dollars, several rules") {
    const std::string rule = "w_gpu.o : w_gpu.cu \\\n    /usr/include/stdc-predef.h \\\n"
                             "    /c/labs/my\\ lab/kernels.cu /c/a$$b.h \\#x.h\n"
                             "/c/extra.h:\n";
    CHECK(parse_make_rule(rule) == std::vector<std::string>{"w_gpu.cu", "/usr/include/stdc-predef.h",
                                                            "/c/labs/my lab/kernels.cu", "/c/a$b.h", "#x.h"});
}

TEST_CASE("search folders from g++ -v") {
    const std::string v = "ignoring nonexistent directory \"/usr/local/include/x86_64-linux-gnu\"\n"
                          "#include \"...\" search starts here:\n"
                          "#include <...> search starts here:\n"
                          " /usr/include/c++/12\n"
                          " /usr/lib/gcc/x86_64-linux-gnu/12/include\n"
                          " /usr/local/include\n"
                          "End of search list.\n";
    CHECK(parse_search_dirs(v) ==
          std::vector<std::string>{"/usr/include/c++/12", "/usr/lib/gcc/x86_64-linux-gnu/12/include", "/usr/local/include"});
}

TEST_CASE("paths: the source, allowed files and folders, system roots; others are shown relative") {
    path_policy p;
    p.source = "/c/labs/lab3_unrolled/kernels.cu";
    p.wrapper = "/b/gen/w.cu";
    p.allowed = {"/c/common/contracts/lab3.cuh", "/c/common/emu/"};
    p.system_roots = {"/usr/include", "/usr/local/cuda-13.0"};
    CHECK(classify_path("/c/labs/lab3_unrolled/kernels.cu", p) == path_kind::source);
    CHECK(classify_path("/b/gen/w.cu", p) == path_kind::wrapper);
    CHECK(classify_path("/c/common/contracts/lab3.cuh", p) == path_kind::allowed);
    CHECK(classify_path("/c/common/emu/cuda_emu.hpp", p) == path_kind::allowed);
    CHECK(classify_path("/usr/local/cuda-13.0/targets/x86_64-linux/include/cuda_runtime.h", p) == path_kind::system);
    CHECK(classify_path("/c/common/contracts/lab4.cuh", p) == path_kind::forbidden);
    CHECK(classify_path("/c/common/emulator/x.hpp", p) == path_kind::forbidden);
    CHECK(classify_path("/usr/includes/x.h", p) == path_kind::forbidden);
    CHECK(classify_path("/etc/passwd", p) == path_kind::forbidden);
    CHECK(shown_path("/c/solutions/lab3_unrolled/kernels.cu", "/c") == "solutions/lab3_unrolled/kernels.cu");
    CHECK(shown_path("/etc/passwd", "/c") == "/etc/passwd");
    CHECK(reaches_message("/proc/self/environ") ==
          "kernels.cu may include only its contract header, CUDA headers and C++ standard headers; it reaches "
          "/proc/self/environ");
}

// ---- 3. Preprocessed output ----

TEST_CASE("preprocessed: only the student's own lines count") {
    const std::string pre = "# 1 \"w.cpp\"\n"
                            "# 1 \"/usr/include/x86_64-linux-gnu/sys/cdefs.h\" 1 3 4\n"
                            "namespace std { inline void f() { __asm__(\"nop\"); } }\n"
                            "# 2 \"w.cpp\" 2\n"
                            "# 1 \"/c/labs/lab3_unrolled/kernels.cu\" 1\n"
                            "\n"
                            "namespace lab3_student {\n"
                            "# 1 \"/usr/include/c++/12/cmath\" 1 3\n"
                            "namespace std { }\n"
                            "# 4 \"/c/labs/lab3_unrolled/kernels.cu\" 2\n"
                            "void g() { asm(\"syscall\"); }\n"
                            "}\n";
    CHECK(messages(scan_preprocessed(pre, student, "lab3_student")) ==
          std::vector<std::string>{"4: inline assembly is not allowed in lab files"});
}

TEST_CASE("preprocessed: namespaces other than the student's, an anonymous one, or nested ones") {
    const std::string pre = "# 1 \"/c/labs/lab3_unrolled/kernels.cu\"\n"
                            "namespace lab3_student { namespace detail { namespace std { } } }\n"
                            "namespace { namespace inner { } }\n"
                            "namespace lab3_student::detail { }\n"
                            "namespace cg = cooperative_groups;\n"
                            "using namespace cooperative_groups;\n"
                            "namespace lab3_reference {\n"
                            "}\n"
                            "inline namespace std __attribute__((__visibility__(\"default\"))) { }\n"
                            "extern \"C\" { namespace x { } }\n";
    const char* tail = "` is not allowed in lab files: everything goes inside namespace LAB_IMPL (lab3_student here) "
                       "or an anonymous namespace";
    CHECK(messages(scan_preprocessed(pre, student, "lab3_student")) ==
          std::vector<std::string>{"6: namespace `lab3_reference" + std::string(tail),
                                   "8: namespace `std" + std::string(tail), "9: namespace `x" + std::string(tail)});
}

TEST_CASE("preprocessed: pragmas made by _Pragma, attributes, exit, computed goto, specializations") {
    const std::string pre = "# 1 \"/c/labs/lab3_unrolled/kernels.cu\"\n"
                            "#pragma unroll 4\n"
                            "#pragma weak evil\n"
                            "namespace lab3_student {\n"
                            "__attribute__((constructor)) void early() {}\n"
                            "[[gnu::section(\".init_array\")]] void (*hook)() = early;\n"
                            "__attribute__((always_inline, __alias__(\"x\"))) void y();\n"
                            "void quit() { exit(0); }\n"
                            "int jump(int k) { static void* t[] = {&&a}; goto *t[k]; a: return 1; }\n"
                            "}\n"
                            "template <> struct std::hash<lab3_student::key> { };\n"
                            "template <> void std::swap<lab3_student::key>(lab3_student::key&, lab3_student::key&) { }\n"
                            "template <> std::size_t lab3_student::f<1>() { return 0; }\n"
                            "template <typename T> class std::vector<T*> { };\n";
    const std::string placed = "))` is not allowed in lab files: it places or runs code where the course does not call it";
    CHECK(messages(scan_preprocessed(pre, student, "lab3_student")) ==
          std::vector<std::string>{
              "2: `#pragma weak` is not allowed in lab files (only #pragma unroll, nounroll, once and GCC unroll)",
              "4: `__attribute__((constructor" + placed, "5: `__attribute__((section" + placed,
              "6: `__attribute__((alias" + placed,
              "7: kernels.cu calls `exit`: kernels may call only device code and the CUDA built-ins",
              "8: a computed goto is not allowed in lab files",
              "10: a lab file may not specialize a template outside namespace LAB_IMPL (`std::hash`)",
              "11: a lab file may not specialize a template outside namespace LAB_IMPL (`std::swap`)",
              "13: a lab file may not specialize a template outside namespace LAB_IMPL (`std::vector`)"});
}

TEST_CASE("preprocessed: a raw string cannot hide lines behind a fake line marker") {
    const std::string pre = "# 1 \"/c/labs/lab3_unrolled/kernels.cu\"\n"
                            "const char* s = R\"x(\n"
                            "# 1 \"/usr/include/stdio.h\"\n"
                            ")x\";\n"
                            "void f() { __asm__(\"syscall\"); }\n";
    CHECK(messages(scan_preprocessed(pre, student, "lab3_student")) ==
          std::vector<std::string>{"4: inline assembly is not allowed in lab files"});
}

// ---- 4. Compiler messages ----

TEST_CASE("diagnostics: gcc messages about the student's file, with its display name") {
    const std::string out =
        "In file included from w_emulated.cpp:4:\n"
        "/c/labs/lab3_unrolled/kernels.cu: In function 'void lab3_student::f()':\n"
        "/c/labs/lab3_unrolled/kernels.cu:4:23: error: 'undefined_thing' was not declared in this scope\n"
        "    4 |     out[blockIdx.x] = undefined_thing + 1;\n"
        "      |                       ^~~~~~~~~~~~~~~\n"
        "In file included from /usr/include/c++/12/vector:64,\n"
        "                 from /c/labs/lab3_unrolled/kernels.cu:3,\n"
        "                 from w_emulated.cpp:4:\n"
        "/usr/include/c++/12/bits/stl_vector.h:12:5: error: secret text\n"
        "   12 |     secret text\n"
        "      |     ^~~~~~\n"
        "g++: fatal error: Killed signal terminated program cc1plus\n";
    const diagnostics d = filter_diagnostics(out, student, {"/c/labs/lab3_unrolled/kernels.cu"}, "labs/lab3_unrolled/kernels.cu");
    CHECK(d.kept == std::vector<std::string>{
                        "labs/lab3_unrolled/kernels.cu: In function 'void lab3_student::f()':",
                        "labs/lab3_unrolled/kernels.cu:4:23: error: 'undefined_thing' was not declared in this scope",
                        "    4 |     out[blockIdx.x] = undefined_thing + 1;",
                        "      |                       ^~~~~~~~~~~~~~~"});
    CHECK(d.hidden_lines == 8);
}

TEST_CASE("diagnostics: nvcc messages about the student's file") {
    const std::string out = "/usr/include/x.h(10): error: something\n"
                            "      secret line\n"
                            "      ^\n"
                            "\n"
                            "/c/labs/lab3_unrolled/kernels.cu(4): error: identifier \"undefined_thing\" is undefined\n"
                            "      out[blockIdx.x] = undefined_thing + 1;\n"
                            "                        ^\n"
                            "\n"
                            "2 errors detected in the compilation of \"w_gpu.cu\".\n";
    const diagnostics d = filter_diagnostics(out, student, {"/c/labs/lab3_unrolled/kernels.cu"}, "kernels.cu");
    CHECK(d.kept == std::vector<std::string>{"kernels.cu(4): error: identifier \"undefined_thing\" is undefined",
                                             "      out[blockIdx.x] = undefined_thing + 1;",
                                             "                        ^"});
    CHECK(d.hidden_lines == 4);
    const diagnostics none = filter_diagnostics("/usr/include/x.h(1): error: x\n", student, {}, "kernels.cu");
    CHECK(none.kept.empty());
    CHECK(none.hidden_lines == 1);
}

TEST_CASE("limits: from the signal, the timeout, or what the driver says") {
    const auto never = [](const std::string&) { return false; };
    CHECK(detect_limit("", 0, true, never) == limit_hit::wall_clock);
    CHECK(detect_limit("", 24, false, never) == limit_hit::cpu);
    CHECK(detect_limit("", 25, false, never) == limit_hit::file_size);
    CHECK(detect_limit("g++: fatal error: CPU time limit exceeded signal terminated program cc1plus\n", 0, false, never) ==
          limit_hit::cpu);
    CHECK(detect_limit("nvcc error   : 'cicc' died due to signal 24\n", 0, false, never) == limit_hit::cpu);
    CHECK(detect_limit("/usr/include/c++/12/bits/x.h(189): catastrophic error: out of memory\n", 0, false, never) ==
          limit_hit::memory);
    CHECK(detect_limit("cc1plus: out of memory allocating 65536 bytes\n", 0, false, never) == limit_hit::memory);
    CHECK(detect_limit("/c/labs/lab3_unrolled/kernels.cu:3:2: error: #error out of memory\n", 0, false, student) ==
          limit_hit::none);
    CHECK(detect_limit("kernels.cu:1:1: error: x\n", 0, false, never) == limit_hit::none);
}

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
          std::vector<std::string>{"0: " + std::string(constructor)});
}

TEST_CASE("object: the emulator's calls and weak instantiations") {
    object_dump d;
    d.nm = "_ZN12lab3_student16reduce_first_addEPKfPfj T 0 10\n"
           "_ZN12lab3_student18reduce_full_unrollILj256EEEvPKfPfj W 0 116\n"
           "_ZZN12lab3_student18reduce_full_unrollILj256EEEvPKfPfjE7scratch u 0 400\n"
           "_ZN3emu6detail7warp_opENS_12warp_op_kindEjmiiPKci U\n"
           "_ZN3emu6detail13block_barrierEiiPKci U\n"
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
