#include "core/policy.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

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

}  // namespace

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
    read(c, "sizes", p.sizes, "correctness");
    read(c, "sizes_emulated", p.sizes_emulated, "correctness");
    read(c, "record_sizes", p.record_sizes, "correctness");
    read(c, "record_sizes_emulated", p.record_sizes_emulated, "correctness");
    read(c, "shapes", p.shapes, "correctness");
    read(c, "shapes_emulated", p.shapes_emulated, "correctness");
    read(c, "case_timeout_seconds", p.case_timeout_seconds, "correctness");
    const auto& t = doc.value("timing", nlohmann::json::object());
    read(t, "reduction_n", p.reduction_n, "timing");
    read(t, "transpose_shape", p.transpose_shape, "timing");
    read(t, "records_n", p.records_n, "timing");
    read(t, "rounds", p.rounds, "timing");
    read(t, "max_rounds", p.max_rounds, "timing");
    read(t, "warmup", p.warmup, "timing");
    read(t, "flush_bytes", p.flush_bytes, "timing");
    read(t, "confidence", p.confidence, "timing");
    read(t, "implausible_fraction", p.implausible_fraction, "timing");
    read(t, "timeout_seconds", p.timing_timeout_seconds, "timing");
    read(doc, "emulated_performance", p.emulated_performance, "policy");

    require(p.tolerance_c > 0, "correctness.tolerance_c must be positive");
    require(!p.sizes.empty() && !p.sizes_emulated.empty(), "correctness.sizes must not be empty");
    for (auto n : p.sizes) require(n > 0, "correctness.sizes: sizes must be at least 1");
    for (auto n : p.sizes_emulated) require(n > 0, "correctness.sizes_emulated: sizes must be at least 1");
    for (const auto& list : {p.record_sizes, p.record_sizes_emulated})
        for (auto n : list) require(n > 0, "correctness.record_sizes: sizes must be at least 1");
    for (const auto& list : {p.shapes, p.shapes_emulated}) {
        for (const auto& shape : list) {
            unsigned r = 0, c = 0;
            require(std::sscanf(shape.c_str(), "%ux%u", &r, &c) == 2 && r > 0 && c > 0,
                    "correctness.shapes: \"" + shape + "\" is not ROWSxCOLS");
        }
    }
    require(p.rounds >= 5, "timing.rounds must be at least 5");
    require(p.max_rounds >= p.rounds, "timing.max_rounds must be at least timing.rounds");
    require(p.confidence > 0.5 && p.confidence < 1, "timing.confidence must be in (0.5, 1)");
    require(p.emulated_performance == "omit" || p.emulated_performance == "pending",
            "emulated_performance must be \"omit\" or \"pending\"");

    require(doc.contains("labs") && doc["labs"].is_object(), "\"labs\" must be an object");
    for (const auto& [name, obj] : doc["labs"].items()) {
        lab_policy lp;
        const std::string where = "labs." + name;
        read(obj, "points", lp.points, where);
        read(obj, "correctness_weight", lp.correctness_weight, where);
        read(obj, "threshold_fraction", lp.threshold_fraction, where);
        read(obj, "floor_fraction", lp.floor_fraction, where);
        read(obj, "checks", lp.checks, where);
        if (obj.contains("max_wavefronts_per_request"))
            read(obj, "max_wavefronts_per_request", lp.max_wavefronts_per_request, where);
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

policy load_policy(const std::string& override_file) {
    nlohmann::json doc = parse_jsonc(default_policy_text(), "built-in default policy");
    if (!override_file.empty()) {
        std::ifstream in(override_file);
        if (!in) throw policy_error("cannot read policy file " + override_file);
        std::stringstream text;
        text << in.rdbuf();
        doc.merge_patch(parse_jsonc(text.str(), override_file));
    }
    return parse_policy(doc);
}

}  // namespace course
