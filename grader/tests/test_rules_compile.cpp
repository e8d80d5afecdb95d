// The submission rules: compile commands, dependencies and paths, and compiler messages and limits.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "rules_test_support.hpp"

using namespace course::rules;
using namespace rules_test;

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
