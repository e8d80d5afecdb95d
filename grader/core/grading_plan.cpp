#include "core/grading_plan.hpp"

#include <algorithm>

namespace course {

namespace {

nlohmann::json checks_json(const std::vector<planned_check>& checks) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : checks)
        out.push_back({{"name", c.name}, {"judged_by", c.judged_by}, {"cost", to_string(c.cost)},
                       {"whole_lab", c.whole_lab}});
    return out;
}

nlohmann::json cases_json(const case_lists& c) { return {{"problems", c.problems}, {"inputs", c.inputs}}; }

}  // namespace

bool listed(const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
}

bool racecheck_judges(const lab_policy& lp, const std::string& part, bool gpu) {
    return gpu && listed(lp.race_check_parts, part);
}

case_lists cases_of(const policy& pol, bool emulated) {
    case_lists c;
    for (const auto& [kind, k] : pol.problems) {
        kind_cases& cases = c.problems[kind];
        cases.sizes = emulated ? k.sizes_emulated : k.sizes;
        if (emulated) cases.large = k.large_sizes_emulated;
    }
    c.inputs = pol.reduction_inputs;
    return c;
}

policy beside_gpu(const policy& pol) {
    policy out = pol;
    if (!pol.large_beside_gpu)
        for (auto& [kind, k] : out.problems) k.large_sizes_emulated.clear();
    return out;
}

std::map<std::string, kind_cases> sanitizer_cases(const policy& pol) {
    std::map<std::string, kind_cases> out;
    for (const auto& [kind, k] : pol.problems) out[kind].sizes = k.sanitizer_sizes;
    return out;
}

bool performance_awarded(const policy& pol, bool gpu) { return gpu || pol.emulated_performance == "pending"; }

std::vector<std::string> counter_check_names(const lab_policy& lp, const std::string& part) {
    std::vector<std::string> names;
    if (listed(lp.checks, "bank_wavefronts")) names.push_back("bank_wavefronts");
    if (const auto it = lp.emulated_checks.find(part); it != lp.emulated_checks.end())
        for (const auto& name : it->second)
            if (!listed(names, name)) names.push_back(name);
    return names;
}

std::vector<planned_check> planned_checks(const policy& pol, const std::string& lab, const std::string& part,
                                          bool gpu) {
    const lab_policy& lp = pol.lab(lab);
    const bool perf = performance_awarded(pol, gpu);
    std::vector<planned_check> out;
    const auto add = [&](const std::string& name, const std::string& judge, bool whole_lab = false) {
        out.push_back({name, judge, penalty_of(name, perf), whole_lab});
    };
    if (listed(lp.checks, "no_libraries"))
        add("no_libraries", "the file's #includes and code, and its object's symbols", true);
    if (listed(lp.checks, "uses_shuffle"))
        add("uses_shuffle", gpu ? "the kernel's SASS holds SHFL, and on the emulator its result depends on the "
                                  "shuffles' values"
                                : "the kernel executes warp shuffles, and its result depends on their values");
    add("traced_run", "the emulator's traced run of the same cases is right");
    add("races", racecheck_judges(lp, part, gpu) ? "compute-sanitizer racecheck"
                                                 : "the emulator's trace of every launch");
    add("initcheck", "the emulator's trace of every launch");
    for (const auto& name : counter_check_names(lp, part)) add(name, "the emulator's counters");
    if (gpu && listed(lp.checks, "bank_wavefronts"))
        out.push_back({"ncu_wavefronts", "Nsight Compute (shown beside the emulator's count, not graded)",
                       check_penalty::none, false});
    return out;
}

nlohmann::json grading_plan(const policy& pol,
                            const std::vector<std::pair<std::string, std::vector<std::string>>>& labs) {
    nlohmann::json out;
    out["cases"] = {{"gpu", cases_json(cases_of(pol, false))},
                    {"emulated", cases_json(cases_of(pol, true))},
                    {"emulated_beside_gpu", cases_json(cases_of(beside_gpu(pol), true))}};
    out["timing"] = {{"rounds", pol.rounds}, {"max_rounds", pol.max_rounds}, {"confidence", pol.confidence}};
    for (const auto& [kind, k] : pol.problems) out["timing"]["timed"][kind] = k.timed;
    for (const auto& [lab, parts] : labs) {
        const lab_policy& lp = pol.lab(lab);
        nlohmann::json& l = out["labs"][lab];
        l["race_check_parts"] = lp.race_check_parts;
        l["target"] = {{"threshold_fraction", lp.threshold_fraction},
                       {"floor_fraction", lp.floor_fraction},
                       {"correctness_weight", lp.correctness_weight}};
        for (const bool gpu : {true, false}) {
            const char* backend = gpu ? "gpu" : "emulated";
            const double correctness = lp.points * lp.correctness_weight;
            const double performance = performance_awarded(pol, gpu) ? lp.points - correctness : 0.0;
            l["points"][backend] = {{"max", correctness + performance},
                                    {"correctness", correctness},
                                    {"performance", performance}};
            for (const auto& id : parts) l["parts"][id][backend] = checks_json(planned_checks(pol, lab, id, gpu));
        }
    }
    return out;
}

}  // namespace course
