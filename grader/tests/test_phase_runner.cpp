// run_phase restarts a worker for the parts it left, and blames a part only when the worker
// died on it (or, having finished none, on the first it left): a stand-in worker, a shell
// script that writes a scripted run's events on fd 3, stands for the lab's.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/policy.hpp"
#include "supervisor/phase_runner.hpp"

using namespace course;

namespace {

// Each run reads the next line of its folder's `runs`: the events (';' between them, each
// "CASE:part" for a case_begin, "DONE:part" for its verdict, "-" for none) and, after a
// space, the exit code.
struct stand_in {
    std::filesystem::path dir;
    explicit stand_in(const std::vector<std::string>& runs) {
        dir = std::filesystem::temp_directory_path() /
              ("course_phase_runner_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
        std::filesystem::create_directories(dir);
        std::ofstream(dir / "runs") << [&] {
            std::string all;
            for (const auto& r : runs) all += r + "\n";
            return all;
        }();
        const auto worker = dir / "worker";
        std::ofstream(worker) << "#!/bin/sh\n"
                                 "d=$(dirname \"$0\")\n"
                                 "n=$(cat \"$d/count\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > \"$d/count\"\n"
                                 "printf '%s\\n' \"$5\" >> \"$d/jobs\"\n"
                                 "line=$(sed -n \"${n}p\" \"$d/runs\")\n"
                                 "code=${line##* }\n"
                                 "for ev in $(echo \"${line% *}\" | tr ';' ' '); do\n"
                                 "  kind=${ev%%:*}; part=${ev#*:}\n"
                                 "  if [ \"$kind\" = CASE ]; then\n"
                                 "    echo \"{\\\"event\\\":\\\"case_begin\\\",\\\"part\\\":\\\"$part\\\",\\\"input\\\":\\\"random\\\",\\\"size\\\":\\\"n=33\\\"}\" >&3\n"
                                 "  elif [ \"$kind\" = DONE ]; then\n"
                                 "    echo \"{\\\"event\\\":\\\"part_correctness\\\",\\\"part\\\":\\\"$part\\\"}\" >&3\n"
                                 "  fi\n"
                                 "done\n"
                                 "exit $code\n";
        std::filesystem::permissions(worker, std::filesystem::perms::owner_all);
    }
    ~stand_in() {
        std::error_code ignored;
        std::filesystem::remove_all(dir, ignored);
    }
    static int& counter() {
        static int n = 0;
        return n;
    }
    std::string worker() const { return (dir / "worker").string(); }
};

struct outcome {
    std::vector<std::vector<std::string>> jobs;  // the parts of each run's job
    std::vector<std::string> blamed;
    std::vector<std::string> done;
};

outcome run(const stand_in& w, const std::vector<std::string>& ids) {
    const grade_options opt;
    const policy pol = load_policy("");
    session s(opt, pol);
    s.worker = w.worker();
    outcome o;
    run_phase(
        s, ids, timeouts(10, 30),
        [&](const std::vector<std::string>& which) {
            o.jobs.push_back(which);
            correctness_request r;
            r.parts = which;
            return correctness_job_of(r);
        },
        {part_correctness_event::event},
        [&](const nlohmann::json& ev) {
            if (is_event<part_correctness_event>(ev)) o.done.push_back(event_part(ev));
        },
        [&](const std::string& id, const worker_run&, const std::string&) { o.blamed.push_back(id); });
    return o;
}

using parts = std::vector<std::string>;

}  // namespace

TEST_CASE("a worker that ends right after a part's verdict (a sticky error) has no part blamed") {
    const stand_in w({"CASE:A;DONE:A 3", "CASE:B;DONE:B;CASE:C;DONE:C 0"});
    const outcome o = run(w, {"A", "B", "C"});
    REQUIRE(o.jobs.size() == 2);
    CHECK(o.jobs[0] == parts{"A", "B", "C"});
    CHECK(o.jobs[1] == parts{"B", "C"});
    CHECK(o.blamed.empty());
    CHECK(o.done == parts{"A", "B", "C"});
}

TEST_CASE("a worker that dies in a part's cases has that part blamed, and the rest run again") {
    const stand_in w({"CASE:A;DONE:A;CASE:B 3", "CASE:C;DONE:C 0"});
    const outcome o = run(w, {"A", "B", "C"});
    REQUIRE(o.jobs.size() == 2);
    CHECK(o.jobs[1] == parts{"C"});
    CHECK(o.blamed == parts{"B"});
    CHECK(o.done == parts{"A", "C"});
}

TEST_CASE("a worker that dies before any case has the first part left blamed: every run ends one part") {
    const stand_in w({"- 1", "- 1", "- 1"});
    const outcome o = run(w, {"A", "B", "C"});
    REQUIRE(o.jobs.size() == 3);
    CHECK(o.blamed == parts{"A", "B", "C"});
    CHECK(o.done.empty());
}

TEST_CASE("a worker that always ends after one verdict still ends the phase, one part a run") {
    const stand_in w({"CASE:A;DONE:A 3", "CASE:B;DONE:B 3", "CASE:C;DONE:C 3"});
    const outcome o = run(w, {"A", "B", "C"});
    REQUIRE(o.jobs.size() == 3);
    CHECK(o.blamed.empty());
    CHECK(o.done == parts{"A", "B", "C"});
}
