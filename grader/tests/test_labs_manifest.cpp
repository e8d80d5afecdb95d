// labs.json against what must agree with it: the grader's list of labs (generated from it)
// and the default policy (written by hand), which must grade every lab and only those.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "supervisor/known_labs.hpp"

namespace {

nlohmann::json read_json(const char* path) {
    std::ifstream in(path);
    REQUIRE_MESSAGE(in.good(), "cannot read " << path);
    std::stringstream text;
    text << in.rdbuf();
    // The policy is JSON with comments.
    return nlohmann::json::parse(text.str(), nullptr, true, true);
}

const nlohmann::json& manifest() {
    static const nlohmann::json m = read_json(COURSE_LABS_JSON);
    return m;
}

}  // namespace

TEST_CASE("the manifest lists labs with a folder and parts, and unique names") {
    const auto& labs = manifest().at("labs");
    REQUIRE(labs.size() >= 5);
    std::set<std::string> names;
    for (const auto& lab : labs) {
        CHECK(names.insert(lab.at("name").get<std::string>()).second);
        CHECK(!lab.at("folder").get<std::string>().empty());
        REQUIRE(!lab.at("parts").empty());
        std::set<std::string> ids;
        for (const auto& part : lab.at("parts")) {
            CHECK(ids.insert(part.at("id").get<std::string>()).second);
            CHECK(!part.at("title").get<std::string>().empty());
            CHECK(!part.at("kernel").get<std::string>().empty());
        }
    }
    CHECK(names.count(manifest().at("naive_baseline_lab").get<std::string>()) == 1);
}

TEST_CASE("the grader knows exactly the manifest's labs, in its order") {
    const auto& labs = manifest().at("labs");
    REQUIRE(course::known_labs().size() == labs.size());
    for (std::size_t i = 0; i < labs.size(); ++i) {
        CHECK(course::known_labs()[i].name == labs[i].at("name").get<std::string>());
        CHECK(course::known_labs()[i].folder == labs[i].at("folder").get<std::string>());
        std::string ids;
        for (const auto& part : labs[i].at("parts")) ids += (ids.empty() ? "" : " ") + part.at("id").get<std::string>();
        CHECK(course::known_labs()[i].parts == ids);
    }
    CHECK(std::string(course::known_labs()[3].parts) == "A B");
    CHECK(course::is_known_lab("lab1"));
    CHECK(!course::is_known_lab("lab0"));
}

TEST_CASE("the default policy grades every lab of the manifest, and no other") {
    const nlohmann::json policy = read_json(COURSE_DEFAULT_POLICY);
    const auto& entries = policy.at("labs");
    std::set<std::string> names;
    for (const auto& lab : manifest().at("labs")) {
        const std::string name = lab.at("name").get<std::string>();
        names.insert(name);
        INFO("lab: " << name);
        REQUIRE(entries.contains(name));
        CHECK(entries.at(name).at("points").get<double>() > 0);
        // The parts the policy singles out exist in the manifest.
        std::set<std::string> ids;
        for (const auto& part : lab.at("parts")) ids.insert(part.at("id").get<std::string>());
        for (const auto& id : entries.at(name).value("race_check_parts", nlohmann::json::array()))
            CHECK(ids.count(id.get<std::string>()) == 1);
    }
    for (const auto& [name, entry] : entries.items()) CHECK_MESSAGE(names.count(name) == 1, name << " is not in labs.json");
}
