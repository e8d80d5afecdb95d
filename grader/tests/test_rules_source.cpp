// The submission rules: the source's directives, and the student's own lines in preprocessed output.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "rules_test_support.hpp"

using namespace course::rules;
using namespace rules_test;

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
"4: #include after the #define or #undef on line 3: every #include must come before the file's first macro, so that "
              "no macro can change what a header means",
              "4: #include must name a header in quotes or angle brackets, not a macro",
              "5: `#include_next` is not allowed in lab files",
              "6: `#import` is not allowed in lab files",
              "7: #include after the #define or #undef on line 3: every #include must come before the file's first macro, so that "
              "no macro can change what a header means",
              "7: #include of \"a b.h\" is not allowed: a character other than letters, digits and _ . / + -",
              "8: #include after the #define or #undef on line 3: every #include must come before the file's first macro, so that "
              "no macro can change what a header means",
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
          std::vector<std::string>{"2: #include after the #define or #undef on line 1: every #include must come before the "
                                   "file's first macro, so that no macro can change what a header means",
                                   "2: #include of \"/etc/hostname\" is not allowed: an absolute path"});
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

TEST_CASE("preprocessed: nothing may hide from or forge the emulator's memory tracing") {
    const std::string pre = "# 1 \"/c/labs/lab3_unrolled/kernels.cu\"\n"
                            "namespace lab3_student {\n"
                            "__attribute__((no_sanitize(\"thread\"))) void a() {}\n"
                            "[[gnu::no_sanitize_thread]] void b() {}\n"
                            "__attribute__((__no_sanitize__(\"thread\"), always_inline)) inline void c() {}\n"
                            "extern \"C\" void __tsan_read4(void*);\n"
                            "void d(float* p) { __tsan_read4(p); }\n"
                            "void e(float* p) { __builtin___tsan_write4(p); }\n"
                            "void f() { ::emu::detail::g_current = nullptr; }\n"
                            "}\n";
    const std::string hides = "))` is not allowed in lab files: it hides the kernel's memory accesses from the "
                              "emulator's checks";
    const std::string names = "`, a callback of the emulator's memory tracing: lab files may not call it";
    CHECK(messages(scan_preprocessed(pre, student, "lab3_student")) ==
          std::vector<std::string>{"2: `__attribute__((no_sanitize" + hides, "3: `__attribute__((no_sanitize_thread" + hides,
                                   "4: `__attribute__((no_sanitize" + hides, "5: kernels.cu names `__tsan_read4" + names,
                                   "6: kernels.cu names `__tsan_read4" + names,
                                   "7: kernels.cu names `__builtin___tsan_write4" + names,
                                   "8: kernels.cu names the emulator's `g_current`: lab files may not touch the "
                                   "emulator's state"});
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
