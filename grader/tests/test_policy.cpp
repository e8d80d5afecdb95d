#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "core/policy.hpp"

using namespace course;

namespace {
std::string write_temp(const std::string& text) {
    char name[] = "/tmp/policy_testXXXXXX";
    const int fd = mkstemp(name);
    REQUIRE(fd >= 0);
    close(fd);
    std::ofstream(name) << text;
    return name;
}
}  // namespace

TEST_CASE("the built-in defaults parse and hold the documented values") {
    const policy p = load_policy("");
    CHECK(p.tolerance_c == 3.0);
    CHECK(p.rounds == 21);
    CHECK(p.max_rounds == 63);
    CHECK(p.flush_bytes == 268435456u);
    CHECK(p.problems.size() == 3);
    const problem_policy& r = p.problem("reduction");
    CHECK(r.timed.count == 33554432u);
    CHECK(r.sizes.front().count == 1u);
    CHECK(r.sizes.back().count == 33554432u);
    CHECK(r.sizes_emulated.size() == 12);
    CHECK(r.large_sizes_emulated.at(0).count == 4194311u);  // past 2^22: a dropped tail shows
    CHECK(r.counted_from == 1000u);
    CHECK(r.hints == "sums");
    CHECK(r.ladder == "reduction");
    CHECK(p.problem("record_sums").counted_from == 125u);  // 1000 floats in records of 8
    CHECK(p.problem("record_sums").ladder == "banks");
    CHECK(p.problem("transpose").timed.word() == "8192x8192");
    CHECK(p.problem("transpose").hints == "movement");
    CHECK(p.problem("transpose").profiled.word() == "2048x2048");
    CHECK_THROWS_WITH_AS(p.problem("scan"), "policy: no block for problem kind \"scan\" under \"problems\"",
                         policy_error);
    CHECK(p.counters_draws == 2);
    CHECK(p.max_excess_wavefronts == 0.05);
    CHECK(p.lab("lab2").emulated_checks.at("B") == std::vector<std::string>{"no_divergence", "bank_wavefronts"});
    CHECK(p.emulated_performance == "omit");
    CHECK(p.lab("lab1").points == 100.0);
    CHECK(p.lab("lab1").correctness_weight == 0.6);
    CHECK_THROWS_AS(p.lab("lab9"), policy_error);
}

TEST_CASE("an instructor's file overrides only the keys it names") {
    const std::string path = write_temp(R"({
        // comments are allowed
        "timing": {"rounds": 31},
        "labs": {"lab1": {"points": 50}}
    })");
    const policy p = load_policy(path);
    CHECK(p.rounds == 31);
    CHECK(p.max_rounds == 63);
    CHECK(p.lab("lab1").points == 50.0);
    CHECK(p.lab("lab1").threshold_fraction == 0.85);
    std::remove(path.c_str());
}

TEST_CASE("an instructor's lab_defaults reach every lab; a lab's own key beats them") {
    const std::string path = write_temp(R"({
        "lab_defaults": {"threshold_fraction": 0.8, "checks": ["no_libraries"]},
        "labs": {"lab2": {"threshold_fraction": 0.9}}
    })");
    const policy p = load_policy(path);
    CHECK(p.lab("lab1").threshold_fraction == 0.8);
    CHECK(p.lab("lab2").threshold_fraction == 0.9);
    CHECK(p.lab("lab5").threshold_fraction == 0.8);
    CHECK(p.lab("lab3").floor_fraction == 0.5);
    // lab 4's lab.json names its checks itself, so the instructor's default list does not reach it.
    CHECK(p.lab("lab4").checks == std::vector<std::string>{"no_libraries", "uses_shuffle"});
    CHECK(p.lab("lab1").checks == std::vector<std::string>{"no_libraries"});
    std::remove(path.c_str());
    const std::string per_part = write_temp(R"({"lab_defaults": {"race_check_parts": ["A"]}})");
    CHECK_THROWS_WITH_AS(load_policy(per_part), doctest::Contains("unknown key lab_defaults.race_check_parts"),
                         policy_error);
    std::remove(per_part.c_str());
}

TEST_CASE("a lab's own keys are held to the keys a lab has, wherever they come from") {
    // As a lab.json's "policy" reaches the grader (cmake/course_manifest.cmake): a typo there
    // is refused, never ignored, and never becomes a key an instructor's file may use.
    nlohmann::json doc = nlohmann::json::parse(default_policy_text(), nullptr, true, true);
    doc["labs"] = nlohmann::json::parse(R"({"lab1": {"threshhold_fraction": 0.8}})");
    CHECK_THROWS_WITH_AS(parse_policy(doc), doctest::Contains("unknown key labs.lab1.threshhold_fraction"),
                         policy_error);
    doc["labs"] = nlohmann::json::parse(R"({"lab1": {"race_check_parts": ["A"], "threshold_fraction": 0.8}})");
    CHECK(parse_policy(doc).lab("lab1").threshold_fraction == 0.8);
    const std::string typo = write_temp(R"({"labs": {"lab4": {"uses_shuffle": true}}})");
    CHECK_THROWS_WITH_AS(load_policy(typo), doctest::Contains("unknown key labs.lab4.uses_shuffle"), policy_error);
    std::remove(typo.c_str());
}

TEST_CASE("bad policies are rejected with a message naming the key") {
    const std::string bad_type = write_temp(R"({"timing": {"rounds": "many"}})");
    CHECK_THROWS_WITH_AS(load_policy(bad_type), doctest::Contains("timing.rounds"), policy_error);
    const std::string bad_value = write_temp(R"({"emulated_performance": "maybe"})");
    CHECK_THROWS_WITH_AS(load_policy(bad_value), doctest::Contains("emulated_performance"), policy_error);
    const std::string not_json = write_temp("{ rounds = 3 }");
    CHECK_THROWS_WITH_AS(load_policy(not_json), doctest::Contains("not valid JSON"), policy_error);
    CHECK_THROWS_WITH_AS(load_policy("/nonexistent/policy.json"), doctest::Contains("cannot read"), policy_error);
    std::remove(bad_type.c_str());
    std::remove(bad_value.c_str());
    std::remove(not_json.c_str());
}

TEST_CASE("timing in the correctness worker: on by default, off from a policy file, a bool only") {
    CHECK(load_policy("").timing_same_worker);
    const std::string off = write_temp(R"({"timing": {"same_worker": false}})");
    const policy p = load_policy(off);
    CHECK_FALSE(p.timing_same_worker);
    CHECK(p.rounds == 21);  // the rest of "timing" stays the default's
    const std::string bad = write_temp(R"({"timing": {"same_worker": "yes"}})");
    CHECK_THROWS_WITH_AS(load_policy(bad), doctest::Contains("timing.same_worker"), policy_error);
    std::remove(off.c_str());
    std::remove(bad.c_str());
}

TEST_CASE("the emulator's large cases beside a GPU: on by default, off in fast_batch.jsonc, refused off with nothing left to draw") {
    CHECK(load_policy("").large_beside_gpu);
    const policy fast = load_policy(COURSE_FAST_BATCH_POLICY);
    CHECK_FALSE(fast.large_beside_gpu);
    CHECK(fast.rounds == 15);
    CHECK(fast.problem("reduction").sizes.back().count == 4194311u);
    // The emulated backend keeps its large case: only the run beside a GPU leaves it out.
    CHECK(fast.problem("reduction").large_sizes_emulated.at(0).count == 4194311u);
    const std::string bad = write_temp(R"({"emulated_counters": {"large_beside_gpu": 0}})");
    CHECK_THROWS_WITH_AS(load_policy(bad), doctest::Contains("emulated_counters.large_beside_gpu"), policy_error);
    // record_sums' regular emulated sizes end at 16383 records: only its large case reaches 20000.
    const std::string nothing = write_temp(
        R"({"emulated_counters": {"large_beside_gpu": false}, "problems": {"record_sums": {"counted_from": 20000}}})");
    CHECK_THROWS_WITH_AS(load_policy(nothing),
                         doctest::Contains("emulated_counters.large_beside_gpu is false, but problems.record_sums has "
                                           "no random regular case to draw counters from beside a GPU"),
                         policy_error);
    // Counters come from random-input cases only: without "random" among the regular cases'
    // inputs, only a large case (always random) could be drawn.
    const std::string no_random = write_temp(
        R"({"emulated_counters": {"large_beside_gpu": false}, "correctness": {"reduction_inputs": ["ones", "integers"]}})");
    CHECK_THROWS_WITH_AS(load_policy(no_random),
                         doctest::Contains("problems.record_sums has no random regular case to draw counters from"),
                         policy_error);
    const std::string no_random_kept = write_temp(R"({"correctness": {"reduction_inputs": ["ones", "integers"]}})");
    CHECK(load_policy(no_random_kept).large_beside_gpu);
    const std::string kept = write_temp(R"({"problems": {"record_sums": {"counted_from": 20000}}})");
    CHECK(load_policy(kept).problem("record_sums").counted_from == 20000u);
    for (const auto& f : {bad, nothing, kept, no_random, no_random_kept}) std::remove(f.c_str());
}

TEST_CASE("technique checks: forbidden libraries and the race check, with their defaults") {
    const policy p = load_policy("");
    REQUIRE(p.forbidden_libraries.size() == 5);
    CHECK(p.forbidden_libraries[0].name == "CUB");
    CHECK(p.forbidden_libraries[3].name == "cooperative groups' reduce");
    CHECK(p.forbidden_libraries[3].include == "(^|/)cooperative_groups/reduce\\.h");
    CHECK(p.problem("reduction").sanitizer_sizes.size() == 2);
    CHECK(p.problem("reduction").sanitizer_sizes.at(1).count == 4097u);
    CHECK(p.race_check_inputs == std::vector<std::string>{"random"});
    CHECK(p.race_check_timeout_seconds == 300.0);
    CHECK(p.lab("lab3").race_check_parts == std::vector<std::string>{"B", "C"});
    CHECK(p.lab("lab4").race_check_parts == std::vector<std::string>{"A", "B"});
    CHECK(p.lab("lab1").race_check_parts.empty());

    const std::string mine = write_temp(R"({"forbidden_libraries": [{"name": "mylib", "code": "\\bmylib::"}],
                                            "labs": {"lab2": {"race_check_parts": ["B"]}}})");
    const policy q = load_policy(mine);
    REQUIRE(q.forbidden_libraries.size() == 1);
    CHECK(q.forbidden_libraries[0].include == "");
    CHECK(q.forbidden_libraries[0].code == "\\bmylib::");
    CHECK(q.lab("lab2").race_check_parts == std::vector<std::string>{"B"});
    std::remove(mine.c_str());
}

TEST_CASE("bad technique-check settings are rejected with the key") {
    const std::string bad_regex = write_temp(R"({"forbidden_libraries": [{"name": "x", "code": "(unclosed"}]})");
    CHECK_THROWS_WITH_AS(load_policy(bad_regex), doctest::Contains("forbidden_libraries[0].code is not a regular expression"),
                         policy_error);
    const std::string empty_rule = write_temp(R"({"forbidden_libraries": [{"name": "x"}]})");
    CHECK_THROWS_WITH_AS(load_policy(empty_rule), doctest::Contains("must name at least one of"), policy_error);
    const std::string bad_input = write_temp(R"({"race_check": {"inputs": ["noise"]}})");
    CHECK_THROWS_WITH_AS(load_policy(bad_input), doctest::Contains("race_check.inputs"), policy_error);
    for (const auto& f : {bad_regex, empty_rule, bad_input}) std::remove(f.c_str());
}

TEST_CASE("a key the defaults do not have is refused with its path and the keys there are") {
    const std::string typo = write_temp(R"({"emulated_counters": {"drws": 3}})");
    CHECK_THROWS_WITH_AS(load_policy(typo),
                         (typo + ": unknown key emulated_counters.drws (the keys of emulated_counters are "
                                 "divergence_margin, draws, large_beside_gpu, max_excess_wavefronts, "
                                 "narrow_sectors_slack, shared_epochs_slack, shared_tree_factor, "
                                 "shared_tree_slack, wide_loads_factor)")
                             .c_str(),
                         policy_error);
    const std::string lab_typo = write_temp(R"({"labs": {"lab3": {"chekcs": []}}})");
    CHECK_THROWS_WITH_AS(load_policy(lab_typo), doctest::Contains("unknown key labs.lab3.chekcs"), policy_error);
    const std::string no_lab = write_temp(R"({"labs": {"lab9": {"points": 10}}})");
    CHECK_THROWS_WITH_AS(load_policy(no_lab),
                         (no_lab + ": unknown lab labs.lab9 (the labs are lab1, lab2, lab3, lab4, lab5)").c_str(),
                         policy_error);
    const std::string rule_typo = write_temp(R"({"forbidden_libraries": [{"name": "x", "cod": "y"}]})");
    CHECK_THROWS_WITH_AS(load_policy(rule_typo), doctest::Contains("unknown key forbidden_libraries[0].cod"),
                         policy_error);
    const std::string top = write_temp(R"({"timming": {}})");
    CHECK_THROWS_WITH_AS(load_policy(top), doctest::Contains("unknown key timming (the keys are "), policy_error);
    const std::string nothing_to_draw = write_temp(R"({"problems": {"record_sums": {"counted_from": 600000}}})");
    CHECK_THROWS_WITH_AS(load_policy(nothing_to_draw),
                         doctest::Contains("problems.record_sums.counted_from is larger than every emulated size"),
                         policy_error);
    // A kind is a worker module and its block: a policy file cannot add one.
    const std::string new_kind = write_temp(R"({"problems": {"scan": {"sizes": [1]}}})");
    CHECK_THROWS_WITH_AS(load_policy(new_kind),
                         doctest::Contains("unknown key problems.scan (the keys of problems are record_sums, "
                                           "reduction, transpose)"),
                         policy_error);
    const std::string bad_shape = write_temp(R"({"problems": {"transpose": {"sizes": ["31x33", "64 by 96"]}}})");
    CHECK_THROWS_WITH_AS(load_policy(bad_shape),
                         doctest::Contains("problems.transpose.sizes: \"64 by 96\" is not a size"), policy_error);
    const std::string no_hints = write_temp(R"({"problems": {"reduction": {"hints": "tea leaves"}}})");
    CHECK_THROWS_WITH_AS(load_policy(no_hints), doctest::Contains("problems.reduction.hints must be"), policy_error);
    for (const auto& f : {nothing_to_draw, new_kind, bad_shape, no_hints}) std::remove(f.c_str());
    const std::string not_object = write_temp("[1, 2]");
    CHECK_THROWS_WITH_AS(load_policy(not_object), doctest::Contains("a policy file holds one JSON object"),
                         policy_error);
}

TEST_CASE("keys every default lab may hold, part ids and a library's own keys are accepted") {
    const std::string mine = write_temp(R"({"labs": {"lab1": {"race_check_parts": ["A"],
                                                        "emulated_checks": {"A": ["no_divergence"]}}},
                                             "forbidden_libraries": [{"name": "x", "symbol": "y"}]})");
    const policy p = load_policy(mine);
    CHECK(p.lab("lab1").race_check_parts == std::vector<std::string>{"A"});
    CHECK(p.lab("lab1").emulated_checks.at("A") == std::vector<std::string>{"no_divergence"});
    // A bad value names the file too.
    const std::string negative = write_temp(R"({"labs": {"lab2": {"points": -1}}})");
    CHECK_THROWS_WITH_AS(load_policy(negative), (negative + ": policy: labs.lab2.points must not be negative").c_str(),
                         policy_error);
}
