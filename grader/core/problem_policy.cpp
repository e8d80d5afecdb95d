#include "core/problem_policy.hpp"

#include <algorithm>

namespace course {

namespace {

void require_that(bool ok, const std::string& what) {
    if (!ok) throw policy_error("policy: " + what);
}

template <typename T>
T read_key(const nlohmann::json& obj, const char* key, const std::string& where) {
    require_that(obj.contains(key), "missing key " + where + "." + key);
    try {
        return obj.at(key).get<T>();
    } catch (const std::exception& e) {  // nlohmann's type errors, problem_size's invalid_argument
        throw policy_error("policy: " + where + "." + key + ": " + e.what());
    }
}

std::vector<problem_size> read_sizes(const nlohmann::json& obj, const char* key, const std::string& where,
                                     bool may_be_empty) {
    const auto sizes = read_key<std::vector<problem_size>>(obj, key, where);
    require_that(may_be_empty || !sizes.empty(), where + "." + key + " must not be empty");
    return sizes;
}

problem_policy read_one(const nlohmann::json& obj, const std::string& where) {
    require_that(obj.is_object(), where + " must be an object");
    problem_policy k;
    k.sizes = read_sizes(obj, "sizes", where, false);
    k.sizes_emulated = read_sizes(obj, "sizes_emulated", where, false);
    k.large_sizes_emulated = read_sizes(obj, "large_sizes_emulated", where, true);
    k.sanitizer_sizes = read_sizes(obj, "sanitizer_sizes", where, false);
    k.timed = read_key<problem_size>(obj, "timed", where);
    k.profiled = read_key<problem_size>(obj, "profiled", where);
    k.counted_from = read_key<std::uint64_t>(obj, "counted_from", where);
    k.hints = read_key<std::string>(obj, "hints", where);
    k.ladder = read_key<std::string>(obj, "ladder", where);
    require_that(k.hints == "sums" || k.hints == "movement", where + ".hints must be \"sums\" or \"movement\"");
    require_that(k.ladder == "reduction" || k.ladder == "banks", where + ".ladder must be \"reduction\" or \"banks\"");
    // Something to draw from: otherwise no part of the kind would have counters, and every
    // one would fail its counter checks.
    const auto reaches = [&](const problem_size& s) { return s.elements() >= k.counted_from; };
    require_that(std::any_of(k.sizes_emulated.begin(), k.sizes_emulated.end(), reaches) ||
                std::any_of(k.large_sizes_emulated.begin(), k.large_sizes_emulated.end(), reaches),
            where + ".counted_from is larger than every emulated size: no problem to draw");
    return k;
}

}  // namespace

std::map<std::string, problem_policy> read_problem_policies(const nlohmann::json& doc) {
    require_that(doc.contains("problems") && doc["problems"].is_object() && !doc["problems"].empty(),
            "\"problems\" must be an object with a block per problem kind");
    std::map<std::string, problem_policy> out;
    for (const auto& [kind, obj] : doc["problems"].items()) out.emplace(kind, read_one(obj, "problems." + kind));
    return out;
}

}  // namespace course
