#pragma once
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/policy.hpp"

namespace course {

// The "problems" block, one entry per problem kind, each checked in full (policy_error
// names the kind and the key).
std::map<std::string, problem_policy> read_problem_policies(const nlohmann::json& doc);

}  // namespace course
