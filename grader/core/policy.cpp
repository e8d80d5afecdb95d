#include "core/policy.hpp"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/problem_policy.hpp"
#include "inputs/inputs.hpp"

namespace course {

namespace {

nlohmann::json parse_jsonc(const std::string& text, const std::string& origin) {
    try {
        return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
    } catch (const nlohmann::json::parse_error& e) {
        throw policy_error(origin + ": not valid JSON: " + e.what());
    }
}

template <typename T>
void read(const nlohmann::json& obj, const char* key, T& out, const std::string& where) {
    if (!obj.contains(key)) throw policy_error("policy: missing key " + where + "." + key);
    try {
        out = obj.at(key).get<T>();
    } catch (const nlohmann::json::exception&) {
        throw policy_error("policy: " + where + "." + key + " has the wrong type (" +
                           obj.at(key).dump() + ")");
    }
}

void require(bool ok, const std::string& what) {
    if (!ok) throw policy_error("policy: " + what);
}

std::string key_list(const nlohmann::json& obj) {
    std::string out;
    for (const auto& [key, value] : obj.items()) out += (out.empty() ? "" : ", ") + key;
    return out;
}

// The keys a lab may set: lab_defaults' and the two per-part lists that only a lab can name.
nlohmann::json lab_keys(const nlohmann::json& lab_defaults) {
    nlohmann::json keys = lab_defaults;
    keys["race_check_parts"] = nlohmann::json::array();
    keys["emulated_checks"] = nlohmann::json::object();
    return keys;
}

// "forbidden_libraries": [{"name": ..., "include": ..., "code": ..., "symbol": ...}, ...]
std::vector<library_rule> read_library_rules(const nlohmann::json& doc) {
    require(doc.contains("forbidden_libraries") && doc["forbidden_libraries"].is_array(),
            "\"forbidden_libraries\" must be a list");
    std::vector<library_rule> rules;
    for (std::size_t i = 0; i < doc["forbidden_libraries"].size(); ++i) {
        const auto& obj = doc["forbidden_libraries"][i];
        const std::string where = "forbidden_libraries[" + std::to_string(i) + "]";
        require(obj.is_object(), where + " must be an object");
        library_rule rule;
        read(obj, "name", rule.name, "policy." + where);
        const std::pair<const char*, std::string*> fields[] = {
            {"include", &rule.include}, {"code", &rule.code}, {"symbol", &rule.symbol}};
        for (const auto& [key, field] : fields) {
            if (obj.contains(key)) read(obj, key, *field, "policy." + where);
            try {
                std::regex check(*field);
            } catch (const std::regex_error& e) {
                throw policy_error("policy: " + where + "." + key + " is not a regular expression (" + e.what() + ")");
            }
        }
        require(!rule.include.empty() || !rule.code.empty() || !rule.symbol.empty(),
                where + " (" + rule.name + ") must name at least one of include, code and symbol");
        rules.push_back(rule);
    }
    return rules;
}

}  // namespace

const problem_policy& policy::problem(const std::string& kind) const {
    const auto it = problems.find(kind);
    if (it == problems.end()) throw policy_error("policy: no block for problem kind \"" + kind + "\" under \"problems\"");
    return it->second;
}

const lab_policy& policy::lab(const std::string& name) const {
    const auto it = labs.find(name);
    if (it == labs.end()) throw policy_error("policy: no entry for " + name + " under \"labs\"");
    return it->second;
}

policy parse_policy(const nlohmann::json& doc) {
    policy p;
    require(doc.is_object(), "the top level must be an object");
    const auto& c = doc.value("correctness", nlohmann::json::object());
    read(c, "tolerance_c", p.tolerance_c, "correctness");
    read(c, "reduction_inputs", p.reduction_inputs, "correctness");
    read(c, "case_timeout_seconds", p.case_timeout_seconds, "correctness");
    p.problems = read_problem_policies(doc);
    const auto& t = doc.value("timing", nlohmann::json::object());
    read(t, "rounds", p.rounds, "timing");
    read(t, "max_rounds", p.max_rounds, "timing");
    read(t, "warmup", p.warmup, "timing");
    read(t, "flush_bytes", p.flush_bytes, "timing");
    read(t, "confidence", p.confidence, "timing");
    read(t, "implausible_fraction", p.implausible_fraction, "timing");
    read(t, "timeout_seconds", p.timing_timeout_seconds, "timing");
    read(t, "same_worker", p.timing_same_worker, "timing");
    read(doc, "emulated_performance", p.emulated_performance, "policy");
    p.forbidden_libraries = read_library_rules(doc);
    const auto& rc = doc.value("race_check", nlohmann::json::object());
    read(rc, "inputs", p.race_check_inputs, "race_check");
    read(rc, "timeout_seconds", p.race_check_timeout_seconds, "race_check");
    const auto& ec = doc.value("emulated_counters", nlohmann::json::object());
    read(ec, "draws", p.counters_draws, "emulated_counters");
    read(ec, "divergence_margin", p.divergence_margin, "emulated_counters");
    read(ec, "shared_tree_factor", p.shared_tree_factor, "emulated_counters");
    read(ec, "shared_tree_slack", p.shared_tree_slack, "emulated_counters");
    read(ec, "shared_epochs_slack", p.shared_epochs_slack, "emulated_counters");
    read(ec, "max_excess_wavefronts", p.max_excess_wavefronts, "emulated_counters");
    read(ec, "wide_loads_factor", p.wide_loads_factor, "emulated_counters");
    read(ec, "narrow_sectors_slack", p.narrow_sectors_slack, "emulated_counters");
    read(ec, "large_beside_gpu", p.large_beside_gpu, "emulated_counters");
    require(p.counters_draws >= 1, "emulated_counters.draws must be at least 1");
    require(p.divergence_margin >= 0 && p.shared_tree_factor >= 1 && p.wide_loads_factor >= 1 &&
                p.shared_tree_slack >= 0 && p.shared_epochs_slack >= 0 && p.max_excess_wavefronts >= 0 &&
                p.narrow_sectors_slack >= 0,
            "emulated_counters: the margins and slacks must be at least 0, shared_tree_factor and wide_loads_factor "
            "at least 1");
    // Beside a GPU without the large cases, the regular ones must leave something to draw:
    // counters come from random-input cases only, and a kind with large sizes (a reduction's)
    // runs its regular sizes with correctness.reduction_inputs, where a large case is always
    // random.
    const bool random_regular = std::find(p.reduction_inputs.begin(), p.reduction_inputs.end(),
                                          to_string(input_kind::random)) != p.reduction_inputs.end();
    for (const auto& [kind, k] : p.problems) {
        if (p.large_beside_gpu || k.large_sizes_emulated.empty()) continue;
        const bool reaches = std::any_of(k.sizes_emulated.begin(), k.sizes_emulated.end(),
                                         [&](const problem_size& s) { return s.elements() >= k.counted_from; });
        require(reaches && random_regular,
                "emulated_counters.large_beside_gpu is false, but problems." + kind +
                    " has no random regular case to draw counters from beside a GPU (one of its sizes_emulated of "
                    "counted_from or more, with \"random\" in correctness.reduction_inputs)");
    }

    require(p.tolerance_c > 0, "correctness.tolerance_c must be positive");
    require(p.rounds >= 5, "timing.rounds must be at least 5");
    require(p.max_rounds >= p.rounds, "timing.max_rounds must be at least timing.rounds");
    require(p.confidence > 0.5 && p.confidence < 1, "timing.confidence must be in (0.5, 1)");
    require(p.emulated_performance == "omit" || p.emulated_performance == "pending",
            "emulated_performance must be \"omit\" or \"pending\"");
    require(!p.race_check_inputs.empty(), "race_check.inputs must not be empty");
    for (const auto& name : p.race_check_inputs)
        require(parse_input_kind(name).has_value(), "race_check.inputs: unknown input kind \"" + name + "\"");
    require(p.race_check_timeout_seconds > 0, "race_check.timeout_seconds must be positive");

    require(doc.contains("lab_defaults") && doc["lab_defaults"].is_object(), "\"lab_defaults\" must be an object");
    require(doc.contains("labs") && doc["labs"].is_object(), "\"labs\" must be an object");
    const nlohmann::json known_keys = lab_keys(doc["lab_defaults"]);
    for (const auto& [name, keys] : doc["labs"].items()) {
        require(keys.is_object(), "labs." + name + " must be an object");
        // Every source of a lab's keys is held to them: a lab.json's policy too.
        for (const auto& [key, value] : keys.items())
            require(known_keys.contains(key), "unknown key labs." + name + "." + key + " (a lab's keys are " +
                                                  key_list(known_keys) + ")");
        // A lab's keys over the defaults of every lab.
        nlohmann::json obj = doc["lab_defaults"];
        obj.merge_patch(keys);
        lab_policy lp;
        const std::string where = "labs." + name;
        read(obj, "points", lp.points, where);
        read(obj, "correctness_weight", lp.correctness_weight, where);
        read(obj, "threshold_fraction", lp.threshold_fraction, where);
        read(obj, "floor_fraction", lp.floor_fraction, where);
        read(obj, "checks", lp.checks, where);
        read(obj, "max_wavefronts_per_request", lp.max_wavefronts_per_request, where);
        if (obj.contains("race_check_parts")) read(obj, "race_check_parts", lp.race_check_parts, where);
        if (obj.contains("emulated_checks")) read(obj, "emulated_checks", lp.emulated_checks, where);
        for (const auto& [part, checks] : lp.emulated_checks)
            for (const auto& check : checks)
                require(check == "no_divergence" || check == "no_shared_tree" || check == "bank_wavefronts" ||
                            check == "wide_loads",
                        where + ".emulated_checks." + part + ": unknown check \"" + check +
                            "\" (no_divergence, no_shared_tree, bank_wavefronts, wide_loads)");
        for (const auto& check : lp.checks)
            require(check == "no_libraries" || check == "uses_shuffle" || check == "bank_wavefronts",
                    where + ".checks: unknown check \"" + check + "\" (no_libraries, uses_shuffle, bank_wavefronts)");
        require(lp.points >= 0, where + ".points must not be negative");
        require(lp.correctness_weight >= 0 && lp.correctness_weight <= 1,
                where + ".correctness_weight must be in [0, 1]");
        require(lp.threshold_fraction > 0, where + ".threshold_fraction must be positive");
        require(lp.floor_fraction >= 0 && lp.floor_fraction < 1, where + ".floor_fraction must be in [0, 1)");
        p.labs.emplace(name, lp);
    }
    return p;
}

namespace {

// A key of an instructor's file that the defaults do not have is a typo, never a setting
// to ignore: the defaults are the schema. A lab's keys are lab_keys(), its emulated_checks'
// keys are part ids, and each forbidden library's keys are its rule's.
void refuse_unknown_keys(const nlohmann::json& mine, const nlohmann::json& known, const std::string& where,
                         const std::string& origin) {
    if (!mine.is_object() || !known.is_object()) return;
    for (const auto& [key, value] : mine.items()) {
        const std::string path = where.empty() ? key : where + "." + key;
        if (where.size() > 5 && where.rfind("labs.", 0) == 0 && key == "emulated_checks") continue;
        if (!known.contains(key))
            throw policy_error(origin + ": unknown key " + path + " (" +
                               (where.empty() ? "the keys are " : "the keys of " + where + " are ") +
                               key_list(known) + ")");
        if (path == "labs") {
            const nlohmann::json any_lab = lab_keys(known.at("lab_defaults"));
            for (const auto& [name, lab] : value.items()) {
                if (!known.at("labs").contains(name))
                    throw policy_error(origin + ": unknown lab labs." + name + " (the labs are " +
                                       key_list(known.at("labs")) + ")");
                refuse_unknown_keys(lab, any_lab, "labs." + name, origin);
            }
            continue;
        }
        if (path == "forbidden_libraries" && value.is_array()) {
            const nlohmann::json rule = {{"name", ""}, {"include", ""}, {"code", ""}, {"symbol", ""}};
            for (std::size_t i = 0; i < value.size(); ++i)
                refuse_unknown_keys(value[i], rule, "forbidden_libraries[" + std::to_string(i) + "]", origin);
            continue;
        }
        refuse_unknown_keys(value, known.at(key), path, origin);
    }
}

}  // namespace

policy load_policy(const std::string& override_file) {
    nlohmann::json doc = parse_jsonc(default_policy_text(), "built-in default policy");
    // Each lab's own keys, from its lab.json (cmake/course_manifest.cmake).
    doc["labs"] = parse_jsonc(default_lab_policies_text(), "the labs' lab.json policies");
    if (!override_file.empty()) {
        std::ifstream in(override_file);
        if (!in) throw policy_error("cannot read policy file " + override_file);
        std::stringstream text;
        text << in.rdbuf();
        const nlohmann::json mine = parse_jsonc(text.str(), override_file);
        if (!mine.is_object()) throw policy_error(override_file + ": a policy file holds one JSON object");
        refuse_unknown_keys(mine, doc, "", override_file);
        doc.merge_patch(mine);
    }
    try {
        return parse_policy(doc);
    } catch (const policy_error& e) {
        // Say which file: the defaults alone always parse.
        if (override_file.empty()) throw;
        throw policy_error(override_file + ": " + e.what());
    }
}

}  // namespace course
