// A class's reference counters (supervisor/reference_counters.hpp): which problems they
// cover, when a grade may read them instead of counting, and how a student-only counters
// event is made whole. Counting them runs a lab worker: the batch tests and
// grader/tests/test_reference_counters.py do that.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <unistd.h>

#include "core/policy.hpp"
#include "core/sha256.hpp"
#include "supervisor/reference_counters.hpp"

using namespace course;

namespace {

problem_size sized(const nlohmann::json& j) { return j.get<problem_size>(); }

version_counters counted(const std::string& version, const std::string& problem, std::uint64_t sectors) {
    version_counters v;
    v.version = version;
    v.problem = problem;
    v.global_load_sectors = sectors;
    return v;
}

std::string words(const std::vector<problem_size>& sizes) {
    std::string out;
    for (const auto& s : sizes) out += (out.empty() ? "" : " ") + s.word();
    return out;
}

// A scratch file with `text` in it, removed at the end of the test.
struct scratch_file {
    explicit scratch_file(const std::string& name, const std::string& text)
        : path("/tmp/test_reference_counters_" + std::to_string(::getpid()) + "_" + name) {
        std::ofstream(path) << text;
    }
    ~scratch_file() { std::remove(path.c_str()); }
    std::string path;
};

part_info part_of(const std::string& id, const std::string& kind) {
    part_info p;
    p.id = id;
    p.kind = kind;
    return p;
}

// Lab 3's file as a batch writes it, counted by `worker`: part A on two problems.
reference_counters lab3_file(const scratch_file& worker) {
    reference_counters r;
    r.lab = "lab3";
    r.worker = worker.path;
    r.worker_sha256 = sha256_file(worker.path);
    r.parts["A"]["n=4097"] = {counted("baseline", "n=4097", 600), counted("reference", "n=4097", 520)};
    r.parts["A"]["n=4194311"] = {counted("reference", "n=4194311", 524290)};
    return r;
}

std::string load(const reference_counters& file, const std::string& lab, const counters_request& drawn,
                 reference_counters& out) {
    const scratch_file saved("cache.json", nlohmann::json(file).dump());
    return load_reference_counters(saved.path, "", lab, drawn, {part_of("A", "reduction")}, out);
}

}  // namespace

TEST_CASE("the problems a grade can draw: each kind's emulated sizes of counted_from elements and up, the large ones too") {
    const counters_request all = countable_problems(load_policy(""));
    CHECK(words(all.problems.at("reduction")) == "n=1000 n=4097 n=65535 n=65536 n=131079 n=4194311");
    CHECK(words(all.problems.at("record_sums")) == "n=255 n=256 n=257 n=1000 n=4097 n=16383 n=524309");
    CHECK(words(all.problems.at("transpose")) == "31x33 33x31 32x32 100x37 64x96 257x129");
    CHECK_FALSE(all.student_only);
}

TEST_CASE("a file that covers the draw, counted by the worker as it still is, stands in for the counting") {
    const scratch_file worker("worker", "the template worker's bytes");
    counters_request drawn;
    drawn.problems["reduction"] = {sized(4097), sized(4194311)};
    drawn.problems["transpose"] = {sized("64x96")};  // no part of this kind: not looked up
    reference_counters out;
    CHECK(load(lab3_file(worker), "lab3", drawn, out) == "");
    CHECK(out.parts.at("A").at("n=4194311").at(0).global_load_sectors == 524290);
}

TEST_CASE("a file that cannot stand in says why, and the grade counts the references itself") {
    const scratch_file worker("worker", "the template worker's bytes");
    counters_request drawn;
    drawn.problems["reduction"] = {sized(4097)};
    reference_counters out;

    SUBCASE("the worker rebuilt since") {
        reference_counters file = lab3_file(worker);
        std::ofstream(worker.path) << "a rebuilt worker";
        CHECK(load(file, "lab3", drawn, out) ==
              "the worker that counted them (" + worker.path + ") has changed or is gone since");
    }
    SUBCASE("no worker named and no fingerprint: a hand-made file") {
        reference_counters file = lab3_file(worker);
        file.worker = "/nonexistent/worker";
        file.worker_sha256 = "";
        CHECK(load(file, "lab3", drawn, out) == "the worker that counted them (/nonexistent/worker) has changed or is gone since");
    }
    SUBCASE("a drawn problem it does not hold") {
        drawn.problems["reduction"] = {sized(65536)};
        const std::string why = load(lab3_file(worker), "lab3", drawn, out);
        CHECK(why.rfind("part A, n=65536: not counted in /tmp/test_reference_counters_", 0) == 0);
    }
    SUBCASE("a problem whose versions end without the reference") {
        reference_counters file = lab3_file(worker);
        file.parts["A"]["n=4097"].pop_back();
        const std::string why = load(file, "lab3", drawn, out);
        CHECK(why.rfind("part A, n=4097: no reference counted in /tmp/test_reference_counters_", 0) == 0);
    }
    SUBCASE("a part it does not hold") {
        reference_counters file = lab3_file(worker);
        file.parts.erase("A");
        const std::string why = load(file, "lab3", drawn, out);
        CHECK(why.rfind("part A is not in /tmp/test_reference_counters_", 0) == 0);
    }
    SUBCASE("not a file of reference counters") {
        const scratch_file junk("junk.json", "{\"lab\": \"lab3\"}");
        const std::string why = load_reference_counters(junk.path, "", "lab3", drawn, {part_of("A", "reduction")}, out);
        CHECK(why.rfind(junk.path + " is not a file of reference counters: ", 0) == 0);
    }
    SUBCASE("no file") {
        CHECK(load_reference_counters("/nonexistent/reference_counters.json", "", "lab3", drawn,
                                      {part_of("A", "reduction")}, out) ==
              "cannot read /nonexistent/reference_counters.json: No such file or directory");
    }
    SUBCASE("bytes other than those the batch wrote: someone wrote over it since") {
        const scratch_file saved("cache.json", nlohmann::json(lab3_file(worker)).dump());
        const std::string pin = sha256_file(saved.path);
        CHECK(load_reference_counters(saved.path, pin, "lab3", drawn, {part_of("A", "reduction")}, out) == "");
        std::ofstream(saved.path, std::ios::app) << " ";
        CHECK(load_reference_counters(saved.path, pin, "lab3", drawn, {part_of("A", "reduction")}, out) ==
              saved.path + " has changed since the batch wrote it");
    }
}

TEST_CASE("another lab's file is refused by name") {
    const scratch_file worker("worker", "the template worker's bytes");
    counters_request drawn;
    drawn.problems["reduction"] = {sized(4097)};
    reference_counters out;
    const std::string why = load(lab3_file(worker), "lab4", drawn, out);
    CHECK(why.find(" holds lab3's, not lab4's") != std::string::npos);
}

// Part A's counters event from a worker, made whole with lab 3's file: "version problem
// sectors" per version, in order.
std::vector<std::string> merged(const std::vector<version_counters>& from_worker) {
    const scratch_file worker("worker", "the template worker's bytes");
    counters_event e;
    e.part = "A";
    e.versions = from_worker;
    merge_reference_counters(e, lab3_file(worker));
    std::vector<std::string> out;
    for (const auto& v : e.versions)
        out.push_back(v.version + " " + v.problem + " " + std::to_string(v.global_load_sectors));
    return out;
}

TEST_CASE("a student-only event made whole: the class's baseline and reference before the student's, per problem") {
    CHECK(merged({counted("student", "n=4097", 700), counted("student", "n=4194311", 530000)}) ==
          std::vector<std::string>{"baseline n=4097 600", "reference n=4097 520", "student n=4097 700",
                                   "reference n=4194311 524290", "student n=4194311 530000"});
}

TEST_CASE("a worker cannot put references of its own into a student-only event: only the class's are kept") {
    // A worker whose kernels forged a cheap "reference" beside the student's counters.
    CHECK(merged({counted("reference", "n=4097", 1), counted("student", "n=4097", 700)}) ==
          std::vector<std::string>{"baseline n=4097 600", "reference n=4097 520", "student n=4097 700"});
}
