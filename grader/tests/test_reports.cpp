#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/report.hpp"

using namespace course;

namespace {
lab_result sample_result() {
    lab_result r;
    r.lab = "lab3";
    r.backend = "gpu";
    r.device = "NVIDIA H200";
    r.seed = 42;
    r.score = 87;
    r.max_score = 100;
    r.exit_code = 1;
    part_result a;
    a.id = "A";
    a.kernel = "reduce_first_add";
    a.correctness.status = correctness_status::passed;
    a.correctness.cases = 52;
    a.correctness_max = 30;
    a.performance_max = 20;
    a.correctness_points = 30;
    a.performance_points = 17;
    a.timing.status = timing_status::measured;
    a.timing.speedup = 4.1;
    a.timing.target = 4.0;
    a.timing.verdict = perf_verdict::meets_target;
    part_result b;
    b.id = "B";
    b.kernel = "reduce <warp> & \"tail\"";
    b.correctness.status = correctness_status::failed;
    b.correctness.cases = 52;
    b.correctness.failed = 3;
    b.correctness_max = 30;
    b.performance_max = 20;
    case_record f;
    f.input = "random";
    f.size = "n=257";
    f.expected = 128.5;
    f.got = 127.0;
    b.correctness.failures.push_back(f);
    b.checks.push_back({"no_libraries", check_status::skipped, "nm not found"});
    r.parts = {a, b};
    return r;
}
}  // namespace

TEST_CASE("summary line") {
    lab_result r = sample_result();
    CHECK(summary_line(r) == "lab3: 87/100 (not correct: part B)");
    r.parts[1].correctness.status = correctness_status::passed;
    r.parts.pop_back();
    CHECK(summary_line(r) == "lab3: 87/100 (correct; 4.10x vs naive, target 4.00x)");
    r.backend = "emulated";
    CHECK(summary_line(r) == "lab3: 87/100 (correct; on the CPU emulator: timing needs a GPU)");
}

TEST_CASE("the text report has no colour codes unless asked") {
    const lab_result r = sample_result();
    const std::string plain = render_text(r, false);
    CHECK(plain.find('\033') == std::string::npos);
    CHECK(plain.find("expected 128.5, got 127") != std::string::npos);
    CHECK(render_text(r, true).find("\033[") != std::string::npos);
}

TEST_CASE("Gradescope results.json has the fields of the spec") {
    const nlohmann::json g = to_gradescope(sample_result());
    CHECK(g["score"] == 87.0);
    CHECK(g["visibility"] == "visible");
    REQUIRE(g["tests"].size() == 4);  // the skipped check worth 0 points is left out
    const auto& t0 = g["tests"][0];
    CHECK(t0["name"] == "Part A correctness (reduce_first_add)");
    CHECK(t0["score"] == 30.0);
    CHECK(t0["max_score"] == 30.0);
    CHECK(t0["status"] == "passed");
    CHECK(t0["visibility"] == "visible");
    CHECK(g["tests"][2]["status"] == "failed");
    CHECK(g["output"].get<std::string>().find("skipped: Part B check no_libraries") != std::string::npos);
    // Round trip through text: valid JSON.
    CHECK(nlohmann::json::parse(g.dump())["tests"].size() == 4);
}

TEST_CASE("emulated performance points are called pending only where the policy keeps them") {
    lab_result r = sample_result();
    r.backend = "emulated";
    for (auto& p : r.parts) p.timing.status = timing_status::not_measured;
    const auto output = [&] { return to_gradescope(r).dump(); };
    CHECK(output().find("performance points are pending a GPU run") != std::string::npos);  // "pending": kept
    for (auto& p : r.parts) p.performance_max = 0;  // "omit": left out of the maximum
    CHECK(output().find("pending a GPU run") == std::string::npos);
}

TEST_CASE("JUnit XML counts and escapes") {
    const std::string xml = to_junit_xml(sample_result());
    CHECK(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 0) == 0);
    CHECK(xml.find("tests=\"5\" failures=\"1\" skipped=\"2\"") != std::string::npos);
    CHECK(xml.find("reduce &lt;warp&gt; &amp; &quot;tail&quot;") != std::string::npos);
    CHECK(xml.find("<warp>") == std::string::npos);
    CHECK(xml_escape(std::string("a\x01z")) == "a?z");
}

TEST_CASE("the whole result serialises to JSON; NaN becomes null") {
    lab_result r = sample_result();
    r.parts[1].correctness.failures[0].got = std::nan("");
    const nlohmann::json j = r;
    CHECK(j["lab"] == "lab3");
    CHECK(j["parts"][1]["correctness"]["failures"][0]["got"].is_null());
    CHECK(j["parts"][0]["max_points"] == 50.0);
}

TEST_CASE("where the grading's time went travels as seconds per phase") {
    lab_result r = sample_result();
    r.seconds = {{"correctness", 2.5}, {"gpu_alone", 0.25}, {"total", 5.0}};
    const nlohmann::json j = r;
    CHECK(j["seconds"].dump() == R"({"correctness":2.5,"gpu_alone":0.25,"total":5.0})");
    CHECK(nlohmann::json(sample_result())["seconds"].dump() == "{}");
}

TEST_CASE("reports are written whole, and unwritable paths are caught early") {
    const std::string path = "/tmp/course_report_test.json";
    write_file_atomic(path, "{}\n");
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    CHECK(s.str() == "{}\n");
    std::remove(path.c_str());
    CHECK(output_path_problem("/nonexistent-folder/x.json") == "folder /nonexistent-folder does not exist");
    CHECK(output_path_problem("/tmp") == "/tmp is a directory");
    CHECK(output_path_problem("/tmp/ok.json") == "");
    CHECK_THROWS(write_file_atomic("/nonexistent-folder/x.json", "x"));
}

TEST_CASE("a failed check and what it cost show, with its message, in every report") {
    lab_result r = sample_result();
    r.backend = "emulated";
    r.parts.pop_back();
    auto& a = r.parts[0];
    a.performance_max = a.performance_points = 0;
    const std::string why = "the lab must be written by hand, without library reductions: CUB: line 3: "
                            "#include <cub/cub.cuh>; every part loses its points";
    r.checks.push_back({"no_libraries", check_status::failed, why});
    a.penalty = check_penalty::everything;
    a.penalty_reason = "check no_libraries failed: " + why;
    a.correctness_points = 0;
    r.score = 0;
    r.max_score = 30;
    CHECK(summary_line(r) == "lab3: 0/30 (failed check: no_libraries; on the CPU emulator: timing needs a GPU)");

    const std::string text = render_text(r, false);
    CHECK(text.find("   no_libraries     FAILED  " + why) != std::string::npos);
    // Told in full once, under Technique checks; the part's line names it.
    CHECK(text.find("       no points: check no_libraries failed (under Technique checks, below)\n") != std::string::npos);
    CHECK(text.find("no points: check no_libraries failed: ") == std::string::npos);

    const nlohmann::json g = to_gradescope(r);
    CHECK(g["tests"][0]["name"] == "Check no_libraries");
    CHECK(g["tests"][0]["status"] == "failed");
    CHECK(g["tests"][0]["output"] == why);
    CHECK(g["tests"][1]["name"] == "Part A correctness (reduce_first_add)");
    CHECK(g["tests"][1]["status"] == "failed");
    CHECK(g["tests"][1]["score"] == 0.0);
    CHECK(g["tests"][1]["output"].get<std::string>().rfind("no points: check no_libraries failed: ", 0) == 0);

    const std::string xml = to_junit_xml(r);
    CHECK(xml.find("<testcase classname=\"lab3\" name=\"Check no_libraries\"><failure message=\"the lab must be written "
                   "by hand") != std::string::npos);
    CHECK(xml.find("<failure message=\"no points: check no_libraries failed: ") != std::string::npos);

    const nlohmann::json j = r;
    CHECK(j["checks"][0]["status"] == "failed");
    CHECK(j["checks"][0]["detail"] == why);
    CHECK(j["parts"][0]["penalty"] == "everything");
    CHECK(j["parts"][0]["penalty_reason"] == "check no_libraries failed: " + why);
}

TEST_CASE("a part's failed check is named in the summary line") {
    lab_result r = sample_result();
    r.parts.pop_back();
    r.parts[0].checks.push_back({"uses_shuffle", check_status::failed, "no SHFL instruction"});
    r.parts[0].penalty = check_penalty::performance;
    r.parts[0].penalty_reason = "check uses_shuffle failed: no SHFL instruction";
    CHECK(summary_line(r) == "lab3: 87/100 (failed check: A uses_shuffle; 4.10x vs naive, target 4.00x)");
    CHECK(render_text(r, false).find(
              "       no performance points: check uses_shuffle failed (under Technique checks, below)\n") !=
          std::string::npos);
    CHECK(render_text(r, false).find("  A  uses_shuffle     FAILED  no SHFL instruction\n") != std::string::npos);
    CHECK(to_gradescope(r)["tests"][1]["output"].get<std::string>().find(
              "no performance points: check uses_shuffle failed") != std::string::npos);
}
