// labs.json and the labs' lab.json against what must agree with them: the grader's list of
// labs (generated from them) and the default policy, which must grade every lab and only those.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/policy.hpp"
#include "supervisor/known_labs.hpp"

namespace {

nlohmann::json read_json(const std::string& path) {
    std::ifstream in(path);
    REQUIRE_MESSAGE(in.good(), "cannot read " << path);
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str());
}

// labs.json, each entry completed with its folder's lab.json.
const nlohmann::json& manifest() {
    static const nlohmann::json m = [] {
        nlohmann::json doc = read_json(COURSE_LABS_JSON);
        const std::string root = std::string(COURSE_LABS_JSON).substr(0, std::string(COURSE_LABS_JSON).rfind('/'));
        for (auto& lab : doc.at("labs")) {
            CHECK_MESSAGE(lab.size() == 2, "labs.json holds only each lab's name and folder");
            lab.update(read_json(root + "/labs/" + lab.at("folder").get<std::string>() + "/lab.json"));
        }
        return doc;
    }();
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
    const course::policy policy = course::load_policy("");
    std::set<std::string> names;
    for (const auto& lab : manifest().at("labs")) {
        const std::string name = lab.at("name").get<std::string>();
        names.insert(name);
        INFO("lab: " << name);
        REQUIRE(policy.labs.count(name) == 1);
        CHECK(policy.lab(name).points > 0);
        // The parts the lab's policy singles out exist.
        std::set<std::string> ids;
        for (const auto& part : lab.at("parts")) ids.insert(part.at("id").get<std::string>());
        for (const auto& id : policy.lab(name).race_check_parts) CHECK(ids.count(id) == 1);
        for (const auto& [id, checks] : policy.lab(name).emulated_checks) CHECK(ids.count(id) == 1);
    }
    for (const auto& [name, entry] : policy.labs) CHECK_MESSAGE(names.count(name) == 1, name << " is not in labs.json");
    // The defaults every lab starts from, and a lab's own keys over them (labs/lab4_shuffle/lab.json).
    CHECK(policy.lab("lab1").threshold_fraction == 0.85);
    CHECK(policy.lab("lab1").checks == std::vector<std::string>{"no_libraries"});
    CHECK(policy.lab("lab4").checks == std::vector<std::string>{"no_libraries", "uses_shuffle"});
    CHECK(policy.lab("lab4").threshold_fraction == 0.85);
    CHECK(policy.lab("lab3").race_check_parts == std::vector<std::string>{"B", "C"});
}

TEST_CASE("a part's hint comes from its lab.json, into the header its binding reads") {
    const auto& lab3 = manifest().at("labs").at(2);
    REQUIRE(lab3.at("name") == "lab3");
    REQUIRE(lab3.at("hints").size() == 1);
    CHECK(lab3.at("hints")[0].at("parts") == nlohmann::json::array({"B", "C"}));
    std::ifstream in(std::string(COURSE_MANIFEST_INCLUDE_DIR) + "/manifest/lab3_parts.hpp");
    REQUIRE(in.good());
    std::string line, a, b, c;
    while (std::getline(in, line)) {
        if (line.rfind("inline constexpr part_names A{", 0) == 0) a = line;
        if (line.rfind("inline constexpr part_names B{", 0) == 0) b = line;
        if (line.rfind("inline constexpr part_names C{", 0) == 0) c = line;
    }
    CHECK(a == R"(inline constexpr part_names A{"A", "first add during the load", "reduce_first_add", ""};)");
    CHECK(b.find(R"("last warp unrolled", "reduce_warp_unrolled", "Look at the last warp's steps. Since Volta)") !=
          std::string::npos);
    CHECK(c.find(R"("reduce_full_unroll", "Look at the last warp's steps.)") != std::string::npos);
}
