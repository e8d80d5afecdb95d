// Grader self-check driver: grades one lab with the grader and checks the verdict and
// the report files.
//   expect_grade --grader G --worker-dir D --lab lab1 --backend gpu --expect pass --out DIR/name
// Exit 0 when everything is as expected, 1 when not, 77 (ctest: skipped) when the GPU
// backend was asked for and the machine has no GPU.
#include <algorithm>
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <vector>

#include "core/protocol.hpp"
#include "process/worker_process.hpp"

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

bool fail(const std::string& why) {
    std::cerr << "expect_grade: " << why << "\n";
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Checks the grader's verdict on one lab."};
    std::string grader, worker_dir, lab, backend = "gpu", expect = "pass", out, policy, status;
    std::vector<std::string> messages;
    std::vector<std::string> env, extra, checks, part_status, timed_status;
    app.add_option("--grader", grader)->required();
    app.add_option("--worker-dir", worker_dir)->required();
    app.add_option("--lab", lab)->required();
    app.add_option("--backend", backend)->check(CLI::IsMember({"gpu", "emulated"}));
    app.add_option("--expect", expect, "pass, fail, or any (only the checks below)")
        ->check(CLI::IsMember({"pass", "fail", "any"}));
    app.add_option("--expect-status", status, "Correctness status every part must have");
    app.add_option("--expect-message", messages,
                   "Text a failure of some part (its correctness or a failed check) must contain (repeatable)");
    app.add_option("--policy", policy);
    app.add_option("--env", env, "KEY=VALUE for the grader's environment");
    app.add_option("--extra", extra, "More arguments for the grader (e.g. --sanitize)");
    app.add_option("--expect-check", checks,
                   "PART:CHECK=STATUS, e.g. B:sanitize=failed; CHECK=STATUS for a check of the whole lab");
    app.add_option("--expect-part", part_status, "PART=STATUS: one part's correctness, e.g. B=failed");
    app.add_option("--expect-timed", timed_status, "PART=STATUS: one part's timing, e.g. C=not_measured");
    std::string timing_worker;
    app.add_option("--expect-timing-worker", timing_worker,
                   "The worker every measured part's timing names (correctness or timing)");
    app.add_option("--out", out, "Prefix of the report files")->required();
    CLI11_PARSE(app, argc, argv);

    if (backend == "gpu") {
        // No GPU: skip at once rather than let the grader fall back to the emulator.
        const course::worker_run probe =
            course::run_worker(course::worker_argv(worker_dir + "/" + lab + "_worker_gpu", course::describe_job()),
                               course::timeouts(60, 120));
        const bool hello = std::any_of(probe.events.begin(), probe.events.end(), [](const nlohmann::json& ev) {
            return course::is_event<course::hello_event>(ev);
        });
        if (!hello) {
            std::cout << "expect_grade: no usable GPU on this machine: skipped\n";
            return 77;
        }
    }
    const std::string json = out + ".json", gradescope = out + ".gradescope.json", junit = out + ".junit.xml";
    std::vector<std::string> args = {grader,       lab,        "--worker-dir", worker_dir, "--json",  json,
                                     "--gradescope", gradescope, "--junit",     junit,      "--quiet", "--no-color"};
    if (backend == "emulated") args.push_back("--emulate");
    if (!policy.empty()) {
        args.push_back("--policy");
        args.push_back(policy);
    }
    for (const auto& a : extra) args.push_back(a);
    for (const std::string f : {json, gradescope, junit}) std::remove(f.c_str());
    const course::worker_run run = course::run_worker(args, {900, 1800}, {}, env);
    std::cout << run.output_tail << "\n";
    if (!run.exited_normally()) {
        fail("the grader " + run.describe_end());
        return 1;
    }
    const auto result = nlohmann::json::parse(slurp(json), nullptr, false);
    if (result.is_discarded()) {
        fail(json + " is missing or not valid JSON");
        return 1;
    }
    if (backend == "gpu" && result.value("backend", "") != "gpu") {
        std::cout << "expect_grade: no GPU on this machine: skipped\n";
        return 77;
    }
    bool ok = true;
    if (result.value("backend", "") != backend) ok = fail("graded on " + result.value("backend", "?"));
    const int want_exit = expect == "pass" ? 0 : 1;
    if (expect == "any" ? run.exit_code > 1 : run.exit_code != want_exit)
        ok = fail("exit code " + std::to_string(run.exit_code) + ", wanted " + (expect == "any" ? "0 or 1" : std::to_string(want_exit)));
    std::string all_failures;
    // A part named by --expect-part is judged by it alone (a right answer that fails a check).
    std::set<std::string> named;
    for (const auto& spec : part_status) named.insert(spec.substr(0, spec.find('=')));
    for (const auto& part : result["parts"]) {
        const std::string got = part["correctness"]["status"];
        // A stub must fail every part on correctness; a solution must pass every part.
        if (expect != "any" && !named.count(part["id"].get<std::string>()) && (got == "passed") != (expect == "pass"))
            ok = fail("part " + part["id"].get<std::string>() + " is " + got);
        if (!status.empty() && got != status) ok = fail("part status " + got + ", wanted " + status);
        all_failures += part["correctness"]["message"].get<std::string>() + "\n";
        for (const auto& f : part["correctness"]["failures"]) all_failures += f["detail"].get<std::string>() + "\n";
        all_failures += part["correctness"]["hint"].get<std::string>() + "\n";
        for (const auto& c : part["checks"])
            if (c["status"] == "failed") all_failures += c["detail"].get<std::string>() + "\n";
    }
    const auto expect_status = [&](const std::vector<std::string>& specs, const char* phase) {
        for (const auto& spec : specs) {
            const auto eq = spec.find('=');
            std::string got = "missing";
            for (const auto& p : result["parts"])
                if (p["id"] == spec.substr(0, eq)) got = p[phase]["status"];
            if (got != spec.substr(eq + 1)) ok = fail("part " + spec.substr(0, eq) + " " + phase + " is " + got);
        }
    };
    expect_status(part_status, "correctness");
    expect_status(timed_status, "timing");
    if (!timing_worker.empty()) {
        int measured = 0;
        for (const auto& p : result["parts"]) {
            if (p["timing"]["status"] != "measured") continue;
            ++measured;
            const std::string got = p["timing"].value("worker", "");
            if (got != timing_worker) ok = fail("part " + p["id"].get<std::string>() + " was timed by the " + got + " worker");
        }
        if (measured == 0) ok = fail("no part was timed");
    }
    for (const auto& spec : checks) {
        const auto colon = spec.find(':'), eq = spec.find('=');
        const std::string part = spec.substr(0, colon), name = spec.substr(colon + 1, eq - colon - 1),
                          want = spec.substr(eq + 1);
        std::string got = "missing";
        if (colon == std::string::npos || colon > eq) {  // a check of the whole lab (no_libraries)
            const std::string lab_check = spec.substr(0, eq);
            if (result.contains("checks"))
                for (const auto& c : result["checks"])
                    if (c["name"] == lab_check) got = c["status"];
            if (got != want) ok = fail("check " + lab_check + " is " + got + ", wanted " + want);
            continue;
        }
        for (const auto& p : result["parts"])
            if (p["id"] == part)
                for (const auto& c : p["checks"])
                    if (c["name"] == name) got = c["status"];
        if (got != want) ok = fail("part " + part + " check " + name + " is " + got + ", wanted " + want);
    }
    for (const auto& message : messages)
        if (all_failures.find(message) == std::string::npos)
            ok = fail("no failure mentions \"" + message + "\"; they were:\n" + all_failures);
    // Every report is written whole, whatever the kernel did.
    const auto gs = nlohmann::json::parse(slurp(gradescope), nullptr, false);
    if (gs.is_discarded() || !gs.contains("score") || !gs["tests"].is_array())
        ok = fail(gradescope + " is not a Gradescope results file");
    const std::string xml = slurp(junit);
    if (xml.rfind("<?xml", 0) != 0 || xml.find("</testsuites>") == std::string::npos)
        ok = fail(junit + " is not a whole JUnit file");
    return ok ? 0 : 1;
}
