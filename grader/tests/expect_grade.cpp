// Self-check driver: grades one lab with the grader and checks the verdict.
//   expect_grade --grader G --worker-dir D --lab lab1 --backend gpu --expect pass --out r.json
// Exit 0 when the verdict is the expected one, 1 when not, 77 (ctest: skipped) when the
// GPU backend was asked for and the machine has no GPU.
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>

#include "supervisor/worker_process.hpp"

int main(int argc, char** argv) {
    CLI::App app{"Checks the grader's verdict on one lab."};
    std::string grader, worker_dir, lab, backend = "gpu", expect = "pass", out;
    app.add_option("--grader", grader)->required();
    app.add_option("--worker-dir", worker_dir)->required();
    app.add_option("--lab", lab)->required();
    app.add_option("--backend", backend)->check(CLI::IsMember({"gpu", "emulated"}));
    app.add_option("--expect", expect)->check(CLI::IsMember({"pass", "fail"}));
    app.add_option("--out", out)->required();
    CLI11_PARSE(app, argc, argv);

    std::vector<std::string> args = {grader, lab, "--worker-dir", worker_dir, "--json", out, "--quiet", "--no-color"};
    if (backend == "emulated") args.push_back("--emulate");
    const course::worker_run run = course::run_worker(args, {900, 1800});
    std::cout << run.output_tail << "\n";
    if (!run.exited_normally()) {
        std::cerr << "expect_grade: the grader " << run.describe_end() << "\n";
        return 1;
    }
    std::ifstream in(out);
    const auto result = nlohmann::json::parse(in, nullptr, false);
    if (result.is_discarded()) {
        std::cerr << "expect_grade: " << out << " is not valid JSON\n";
        return 1;
    }
    if (backend == "gpu" && result.value("backend", "") != "gpu") {
        std::cout << "expect_grade: no GPU on this machine: skipped\n";
        return 77;
    }
    if (result.value("backend", "") != backend) {
        std::cerr << "expect_grade: graded on " << result.value("backend", "?") << ", wanted " << backend << "\n";
        return 1;
    }
    const int want_exit = expect == "pass" ? 0 : 1;
    bool ok = run.exit_code == want_exit;
    for (const auto& part : result["parts"]) {
        const bool correct = part["correctness"]["status"] == "passed";
        // A stub must fail every part on correctness; a solution must pass every part.
        if (correct != (expect == "pass")) {
            std::cerr << "expect_grade: part " << part["id"] << " correctness is " << part["correctness"]["status"]
                      << "\n";
            ok = false;
        }
    }
    if (run.exit_code != want_exit)
        std::cerr << "expect_grade: exit code " << run.exit_code << ", wanted " << want_exit << "\n";
    return ok ? 0 : 1;
}
