#include "worker/problem_kind.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>

namespace course {

namespace {

// A function-local static: the kinds' registrations run during static initialisation, in
// an order no file can rely on.
std::map<std::string, std::unique_ptr<problem_kind>>& registry() {
    static std::map<std::string, std::unique_ptr<problem_kind>> kinds;
    return kinds;
}

}  // namespace

problem_kind_registration::problem_kind_registration(const char* name, std::unique_ptr<problem_kind> kind) {
    if (!registry().emplace(name, std::move(kind)).second) {
        // Before main: there is no caller to throw to.
        std::fprintf(stderr, "two problem kinds are named %s\n", name);
        std::abort();
    }
}

std::vector<std::string> problem_kind_names() {
    std::vector<std::string> names;
    for (const auto& [name, kind] : registry()) names.push_back(name);
    return names;
}

const problem_kind& problem_kind_named(const std::string& name) {
    const auto it = registry().find(name);
    if (it != registry().end()) return *it->second;
    std::string known;
    for (const auto& n : problem_kind_names()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("no problem kind \"" + name + "\" in this worker (its kinds: " + known + ")");
}

}  // namespace course
