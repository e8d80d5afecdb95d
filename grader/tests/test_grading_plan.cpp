// The grading plan (core/grading_plan.cpp) under the default policy: what each backend
// checks, what judges it and what a failure costs; the handouts cite it.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/grading_plan.hpp"

using namespace course;

namespace {

std::vector<std::string> names(const std::vector<planned_check>& checks) {
    std::vector<std::string> out;
    for (const auto& c : checks) out.push_back(c.name);
    return out;
}

const planned_check& find(const std::vector<planned_check>& checks, const std::string& name) {
    for (const auto& c : checks)
        if (c.name == name) return c;
    throw std::runtime_error("no check " + name);
}

}  // namespace

TEST_CASE("lab 4 B: the same checks on both backends; a technique costs the performance points on a GPU only") {
    const policy pol = load_policy("");
    const auto gpu = planned_checks(pol, "lab4", "B", true);
    const auto emulated = planned_checks(pol, "lab4", "B", false);
    const std::vector<std::string> expected = {"no_libraries", "uses_shuffle", "traced_run", "races",
                                               "initcheck",    "no_shared_tree", "wide_loads"};
    CHECK(names(gpu) == expected);
    CHECK(names(emulated) == expected);
    CHECK(find(gpu, "uses_shuffle").cost == check_penalty::performance);
    CHECK(find(emulated, "uses_shuffle").cost == check_penalty::everything);
    CHECK(find(gpu, "wide_loads").cost == check_penalty::performance);
    CHECK(find(gpu, "races").judged_by == "compute-sanitizer racecheck");
    CHECK(find(emulated, "races").judged_by == "the emulator's trace of every launch");
    CHECK(find(gpu, "no_libraries").whole_lab);
    CHECK(find(gpu, "no_libraries").cost == check_penalty::everything);
}

TEST_CASE("lab 3 A has no racecheck on a GPU; lab 5 shows Nsight Compute's figure beside its bank check") {
    const policy pol = load_policy("");
    CHECK(find(planned_checks(pol, "lab3", "A", true), "races").judged_by == "the emulator's trace of every launch");
    CHECK(find(planned_checks(pol, "lab3", "C", true), "races").judged_by == "compute-sanitizer racecheck");
    const auto lab5 = planned_checks(pol, "lab5", "A", true);
    CHECK(names(lab5) == std::vector<std::string>{"no_libraries", "traced_run", "races", "initcheck",
                                                  "bank_wavefronts", "ncu_wavefronts"});
    CHECK(find(lab5, "ncu_wavefronts").cost == check_penalty::none);
    CHECK(names(planned_checks(pol, "lab5", "A", false)).size() == 5);
}

TEST_CASE("counter checks: the lab's bank_wavefronts first, then the part's, each once") {
    lab_policy lp;
    lp.checks = {"no_libraries", "bank_wavefronts"};
    lp.emulated_checks = {{"B", {"no_divergence", "bank_wavefronts"}}};
    CHECK(counter_check_names(lp, "B") == std::vector<std::string>{"bank_wavefronts", "no_divergence"});
    CHECK(counter_check_names(lp, "A") == std::vector<std::string>{"bank_wavefronts"});
}

TEST_CASE("\"emulated_performance\": \"pending\" keeps a technique's cost at the performance points") {
    policy pol = load_policy("");
    pol.emulated_performance = "pending";
    CHECK(performance_awarded(pol, false));
    CHECK(find(planned_checks(pol, "lab2", "A", false), "no_divergence").cost == check_penalty::performance);
    CHECK(find(planned_checks(pol, "lab2", "A", false), "races").cost == check_penalty::everything);
    pol.emulated_performance = "omit";
    CHECK(!performance_awarded(pol, false));
    CHECK(performance_awarded(pol, true));
}

TEST_CASE("the plan's JSON: points, the performance rule and cases per backend") {
    const policy pol = load_policy("");
    const auto plan = grading_plan(pol, {{"lab1", {"A"}}});
    CHECK(plan["labs"]["lab1"]["points"]["emulated"]["max"] == 60.0);
    CHECK(plan["labs"]["lab1"]["target"]["threshold_fraction"] == 0.85);
    CHECK(plan["labs"]["lab1"]["target"]["floor_fraction"] == 0.5);
    CHECK(plan["labs"]["lab1"]["target"]["correctness_weight"] == 0.6);
    CHECK(plan["timing"] == nlohmann::json::parse(R"({"rounds": 21, "max_rounds": 63, "confidence": 0.95,
        "timed": {"reduction": 33554432, "record_sums": 16777216, "transpose": "8192x8192"}})"));
    CHECK(plan["labs"]["lab1"]["points"]["gpu"]["performance"] == 40.0);
    CHECK(plan["labs"]["lab1"]["parts"]["A"]["emulated"][0]["name"] == "no_libraries");
    CHECK(plan["cases"]["emulated"]["problems"]["reduction"]["large"] == nlohmann::json::array({4194311}));
    CHECK(plan["cases"]["emulated"]["problems"]["record_sums"]["large"] == nlohmann::json::array({524309}));
    CHECK(plan["cases"]["gpu"]["problems"]["reduction"]["large"] == nlohmann::json::array());
    CHECK(plan["cases"]["gpu"]["problems"]["reduction"]["sizes"].back() == 33554432);
    CHECK(plan["cases"]["emulated"]["problems"]["transpose"]["sizes"].back() == "257x129");
    CHECK(plan["cases"]["emulated_beside_gpu"] == plan["cases"]["emulated"]);
}

TEST_CASE("beside a GPU without the large cases: the emulator's regular cases only, its own backend untouched") {
    policy pol = load_policy("");
    pol.large_beside_gpu = false;
    const policy beside = beside_gpu(pol);
    CHECK(beside.problem("reduction").large_sizes_emulated.empty());
    CHECK(beside.problem("record_sums").large_sizes_emulated.empty());
    CHECK(beside.problem("reduction").sizes_emulated == pol.problem("reduction").sizes_emulated);
    CHECK(beside.problem("reduction").sizes == pol.problem("reduction").sizes);
    const auto plan = grading_plan(pol, {{"lab3", {"A"}}});
    CHECK(plan["cases"]["emulated_beside_gpu"]["problems"]["reduction"]["large"] == nlohmann::json::array());
    CHECK(plan["cases"]["emulated_beside_gpu"]["problems"]["reduction"]["sizes"].back() == 131079);
    CHECK(plan["cases"]["emulated"]["problems"]["reduction"]["large"] == nlohmann::json::array({4194311}));
    CHECK(plan["cases"]["gpu"]["problems"]["reduction"]["sizes"].back() == 33554432);
}
