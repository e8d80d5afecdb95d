#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "core/report.hpp"

using namespace course;

TEST_CASE("the graded file is shown relative to the course root when inside it") {
    CHECK(shown_source_path("/home/ana/course/labs/lab1_divergent/kernels.cu", "/home/ana/course") ==
          "labs/lab1_divergent/kernels.cu");
    CHECK(shown_source_path("/home/ana/course/labs/lab1_divergent/kernels.cu", "/home/ana/course/") ==
          "labs/lab1_divergent/kernels.cu");
    CHECK(shown_source_path("/home/ana/course/./solutions/../solutions/lab3_unrolled/kernels.cu",
                            "/home/ana/course") == "solutions/lab3_unrolled/kernels.cu");
    // A sibling folder whose name starts like the root is outside it.
    CHECK(shown_source_path("/home/ana/course2/labs/lab1_divergent/kernels.cu", "/home/ana/course") ==
          "/home/ana/course2/labs/lab1_divergent/kernels.cu");
    CHECK(shown_source_path("/tmp/sub/lab1_divergent/kernels.cu", "/home/ana/course") ==
          "/tmp/sub/lab1_divergent/kernels.cu");
    CHECK(shown_source_path("/home/ana/course/labs/lab1_divergent/kernels.cu", "") ==
          "/home/ana/course/labs/lab1_divergent/kernels.cu");
    CHECK(shown_source_path("labs/lab1_divergent/kernels.cu", "/home/ana/course") == "labs/lab1_divergent/kernels.cu");
    CHECK(shown_source_path("", "/home/ana/course") == "");
}

TEST_CASE("only labs/<folder>/kernels.cu is the student's own file") {
    CHECK(is_student_lab_file("labs/lab3_unrolled/kernels.cu"));
    CHECK_FALSE(is_student_lab_file("solutions/lab3_unrolled/kernels.cu"));
    CHECK_FALSE(is_student_lab_file("grader/tests/submissions/alt/lab1_divergent/kernels.cu"));
    CHECK_FALSE(is_student_lab_file("/home/ana/course/labs/lab3_unrolled/kernels.cu"));
    CHECK_FALSE(is_student_lab_file("labs/lab3_unrolled/other.cu"));
    CHECK_FALSE(is_student_lab_file(""));
}

TEST_CASE("a report says plainly when the graded file is not the student's") {
    CHECK(graded_source_note("labs/lab3_unrolled/kernels.cu") == "");
    CHECK(graded_source_note("") == "");
    CHECK(graded_source_note("solutions/lab3_unrolled/kernels.cu") ==
          "graded solutions/lab3_unrolled/kernels.cu, the reference answer, not labs/lab3_unrolled/kernels.cu "
          "(this build was made with LAB_SOURCE=solutions; `make lab3` builds yours again)");
    CHECK(graded_source_note("/tmp/sub/lab1_divergent/kernels.cu") ==
          "graded /tmp/sub/lab1_divergent/kernels.cu, not labs/lab1_divergent/kernels.cu "
          "(this build was made with LAB_SOURCE pointing there; `make lab1` builds yours again)");
}

namespace {
lab_result graded_lab1() {
    lab_result r;
    r.lab = "lab1";
    r.backend = "emulated";
    r.device = "CPU emulator";
    r.seed = 7;
    r.source = {"labs/lab1_divergent/kernels.cu", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"};
    r.score = r.max_score = 30;
    r.passed = true;
    r.exit_code = 0;
    part_result a;
    a.id = "A";
    a.kernel = "reduce_divergent";
    a.correctness.status = correctness_status::passed;
    a.correctness.cases = 48;
    a.correctness_max = a.correctness_points = 30;
    r.parts.push_back(a);
    return r;
}

lab_result compile_error_lab1() {
    lab_result r;
    r.lab = "lab1";
    r.source = {"labs/lab1_divergent/kernels.cu", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"};
    r.build = {"compile_error", "labs/lab1_divergent/kernels.cu:12:5: error: 'sdata' was not declared in this scope"};
    r.max_score = 60;
    r.exit_code = 1;
    return r;
}
}  // namespace

TEST_CASE("every report names the graded file; the JSON has its SHA-256") {
    const lab_result r = graded_lab1();
    CHECK(render_text(r, false).find("graded: labs/lab1_divergent/kernels.cu, sha256 ba7816bf8f01\n") !=
          std::string::npos);
    const nlohmann::json j = r;
    CHECK(j["source"]["path"] == "labs/lab1_divergent/kernels.cu");
    CHECK(j["source"]["sha256"] == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(j["build"].is_null());
    CHECK(to_gradescope(r)["output"].get<std::string>().find(
              "\ngraded: labs/lab1_divergent/kernels.cu (sha256 "
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad)") != std::string::npos);
    const std::string xml = to_junit_xml(r);
    CHECK(xml.find("<property name=\"source\" value=\"labs/lab1_divergent/kernels.cu\"/>") != std::string::npos);
    CHECK(xml.find("<property name=\"source_sha256\" value=\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\"/>") !=
          std::string::npos);
}

TEST_CASE("a file that did not build is a failed grade in every report, with the compiler's message") {
    const lab_result r = compile_error_lab1();
    CHECK(summary_line(r) == "lab1: 0/60 (labs/lab1_divergent/kernels.cu does not compile; nothing was graded)");
    const std::string text = render_text(r, false);
    CHECK(text.find("lab1 [not graded: the file did not build]\nfile: labs/lab1_divergent/kernels.cu") == 0);
    CHECK(text.find("\nBuild\n  labs/lab1_divergent/kernels.cu:12:5: error: 'sdata' was not declared") !=
          std::string::npos);
    const nlohmann::json j = r;
    CHECK(j["build"]["kind"] == "compile_error");
    CHECK(j["exit_code"] == 1);
    const nlohmann::json gs = to_gradescope(r);
    REQUIRE(gs["tests"].size() == 1);
    CHECK(gs["tests"][0]["name"] == "Build of labs/lab1_divergent/kernels.cu");
    CHECK(gs["tests"][0]["status"] == "failed");
    CHECK(gs["tests"][0]["max_score"] == 60);
    CHECK(gs["tests"][0]["output"].get<std::string>().find("'sdata' was not declared") != std::string::npos);
    const std::string xml = to_junit_xml(r);
    CHECK(xml.find("tests=\"1\" failures=\"1\"") != std::string::npos);
    CHECK(xml.find("<failure message=\"labs/lab1_divergent/kernels.cu does not compile; nothing was graded\">") !=
          std::string::npos);

    lab_result refused = r;
    refused.build.kind = "rejected";
    CHECK(summary_line(refused) ==
          "lab1: 0/60 (labs/lab1_divergent/kernels.cu was refused by the course's guard; nothing was graded)");
    lab_result unlinked = r;
    unlinked.build.kind = "link_error";
    CHECK(summary_line(unlinked) ==
          "lab1: 0/60 (labs/lab1_divergent/kernels.cu does not link with the course's code; nothing was graded)");
}

TEST_CASE("progress is saved whole, as DIR/<lab>.json, creating DIR") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "course_test_progress" / "progress";
    fs::remove_all(dir.parent_path());
    CHECK(save_progress(graded_lab1(), dir.string()) == "");
    std::ifstream in(dir / "lab1.json");
    const auto j = nlohmann::json::parse(in);
    CHECK(j["lab"] == "lab1");
    CHECK(j["passed"] == true);
    CHECK(j["backend"] == "emulated");
    CHECK(save_progress(graded_lab1(), "/proc/no_such_folder/progress").rfind("cannot create /proc/no_such_folder", 0) == 0);
    fs::remove_all(dir.parent_path());
}
