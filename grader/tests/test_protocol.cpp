#include <doctest/doctest.h>

#include "core/protocol.hpp"

using namespace course;

// A count or a shape, as the policy writes it.
problem_size sized(const nlohmann::json& j) { return j.get<problem_size>(); }

TEST_CASE("a job travels as JSON and back unchanged") {
    correctness_request request;
    request.parts = {"A", "B"};
    request.seed = 7;
    request.tolerance_c = 3.0;
    request.inputs = {"random", "ones"};
    request.problems["reduction"] = {{sized(1), sized(33)}, {sized(4194311)}};
    request.problems["transpose"] = {{sized("31x33")}, {}};
    request.counters = counters_request{{{"reduction", {sized(65536)}}, {"transpose", {sized("64x64")}}}};
    const worker_job job = correctness_job_of(request, sandbox_mode::relaxed);
    const nlohmann::json wire = job;
    CHECK(wire.at("command") == "correctness");
    CHECK(wire.at("sandbox") == "relaxed");
    const worker_job back = wire.get<worker_job>();
    CHECK(back.command == worker_command::correctness);
    REQUIRE(back.correctness);
    CHECK(back.correctness->parts == std::vector<std::string>{"A", "B"});
    CHECK(back.correctness->seed == 7);
    CHECK(back.correctness->problems.at("reduction").sizes == std::vector<problem_size>{sized(1), sized(33)});
    CHECK(back.correctness->problems.at("reduction").large == std::vector<problem_size>{sized(4194311)});
    CHECK(back.correctness->problems.at("transpose").sizes.at(0).rows == 31);
    CHECK(back.correctness->problems.at("transpose").sizes.at(0).cols == 33);
    CHECK(wire.at("correctness").at("problems").at("transpose").at("sizes") == nlohmann::json::array({"31x33"}));
    CHECK(wire.at("correctness").at("problems").at("reduction").at("sizes") == nlohmann::json::array({1, 33}));
    CHECK_FALSE(back.correctness->wait_for_go);
    CHECK_FALSE(back.timing);
    CHECK_FALSE(back.correctness->counters->student_only);
    CHECK(wire.at("correctness").at("counters").at("student_only") == false);
    correctness_request student_only = request;
    student_only.counters->student_only = true;
    worker_job references = correctness_job_of(student_only);
    references.command = worker_command::references;
    const worker_job references_back = nlohmann::json(references).get<worker_job>();
    CHECK(nlohmann::json(references).at("command") == "references");
    CHECK(references_back.command == worker_command::references);
    CHECK(references_back.correctness->counters->student_only);
    correctness_request waiting = request;
    waiting.wait_for_go = true;
    CHECK(nlohmann::json(correctness_job_of(waiting)).get<worker_job>().correctness->wait_for_go);
}

TEST_CASE("a correctness job that times next carries both requests, and a plain one no timing") {
    correctness_request cases;
    cases.parts = {"A", "B"};
    cases.wait_for_go = true;
    const timing_request timed{{"A", "B"}, 9, 3.0, {{"reduction", sized(1024)}}, 21, 1, 4096};
    const worker_job job = nlohmann::json(correctness_then_timing_job_of(cases, timed)).get<worker_job>();
    CHECK(job.command == worker_command::correctness);
    CHECK(job.sandbox == sandbox_mode::strict);
    REQUIRE(job.correctness);
    CHECK(job.correctness->parts == std::vector<std::string>{"A", "B"});
    CHECK(job.correctness->wait_for_go);
    REQUIRE(job.timing);
    CHECK(job.timing->seed == 9u);
    CHECK(job.timing->rounds == 21);
    CHECK_FALSE(nlohmann::json(correctness_job_of(cases)).get<worker_job>().timing);
}

TEST_CASE("a job with a missing key or an unknown name is refused, not defaulted") {
    nlohmann::json wire =
        timing_job_of({{"A"}, 1, 3.0, {{"reduction", sized(1024)}, {"transpose", sized("64x64")}}, 21, 1, 4096});
    CHECK_NOTHROW(wire.get<worker_job>());
    nlohmann::json no_rounds = wire;
    no_rounds["timing"].erase("rounds");
    CHECK_THROWS(no_rounds.get<worker_job>());
    nlohmann::json bad_command = wire;
    bad_command["command"] = "format_disk";
    CHECK_THROWS(bad_command.get<worker_job>());
    nlohmann::json bad_sandbox = wire;
    bad_sandbox["sandbox"] = "none";
    CHECK_THROWS(bad_sandbox.get<worker_job>());
    // A size is a count of at least 1 or a shape ROWSxCOLS, nothing else.
    for (const char* bad : {R"(0)", R"(-3)", R"(2.5)", R"("31x")", R"("x33")", R"("0x4")", R"("31x33x2")", R"("n=4")"}) {
        nlohmann::json bad_size = wire;
        bad_size["timing"]["sizes"]["reduction"] = nlohmann::json::parse(bad);
        CHECK_THROWS_WITH(bad_size.get<worker_job>(), doctest::Contains("is not a size"));
    }
}

TEST_CASE("worker_argv: the worker, its event descriptor and the job") {
    const auto argv = worker_argv("/w/lab1_worker_gpu", describe_job());
    REQUIRE(argv.size() == 5);
    CHECK(argv[0] == "/w/lab1_worker_gpu");
    CHECK(argv[1] == "--events-fd");
    CHECK(argv[2] == "3");
    CHECK(argv[3] == "--job");
    CHECK(nlohmann::json::parse(argv[4]).at("command") == "describe");
}

TEST_CASE("events carry their type and read back by it") {
    const nlohmann::json wire = to_event(part_correctness_event{"B", true, 51, 0, false, 12});
    CHECK(wire.at("event") == "part_correctness");
    CHECK(is_event<part_correctness_event>(wire));
    CHECK_FALSE(is_event<timing_event>(wire));
    CHECK(event_part(wire) == "B");
    const auto back = wire.get<part_correctness_event>();
    CHECK(back.cases == 51);
    CHECK(back.warp_shuffles == std::optional<std::uint64_t>(12));
    // The GPU reports no shuffle count: null on the wire, nothing after.
    const auto gpu = to_event(part_correctness_event{"B", true, 51, 0, false, std::nullopt})
                         .get<part_correctness_event>();
    CHECK_FALSE(gpu.warp_shuffles);
}

TEST_CASE("a hello names the parts with their kernels") {
    hello_event hello{"lab2", "emulated", {}, {}};
    hello.device.name = "CPU emulator";
    hello.parts.push_back({"A", "interleaved", "reduce_strided", "reduction", 256, 528, 0, "", "ref", "base"});
    const auto back = to_event(hello).get<hello_event>();
    CHECK(back.device.name == "CPU emulator");
    REQUIRE(back.parts.size() == 1);
    CHECK(back.parts[0].kernel == "reduce_strided");
    CHECK(back.parts[0].elements_per_block == 256);
    CHECK(back.parts[0].max_grid == 528);
}

TEST_CASE("the emulator's counters travel by version") {
    counters_event counted{"B", "n=65536", {}, {}, "", ""};
    counted.hazards.races = {"thread 0 writes sdata[3] at line 12, thread 3 reads it at line 14"};
    counted.hazards.cases = 52;
    version_counters yours;
    yours.version = "student";
    yours.kernel = "reduce_sequential";
    yours.shared_load_requests = 2048;
    yours.shared_load_wavefronts = 2048;
    yours.problem = "n=65536";
    yours.elements = 65536;
    yours.instructions.push_back({" [at exe+0x1a2b]", true, "load", 4, 2048, 2048, 2048, 0, 65536});
    counted.versions.push_back(yours);
    const auto back = to_event(counted).get<counters_event>();
    REQUIRE(back.versions.size() == 1);
    CHECK(back.versions[0].shared_load_wavefronts == 2048);
    CHECK(back.versions[0].elements == 65536);
    REQUIRE(back.versions[0].instructions.size() == 1);
    CHECK(back.versions[0].instructions[0].place == " [at exe+0x1a2b]");
    CHECK(back.versions[0].instructions[0].op == "load");
    CHECK(back.hazards.races.size() == 1);
    CHECK(back.hazards.cases == 52);
    correctness_request request;
    request.parts = {"A"};
    request.inputs = {"random"};
    request.problems["reduction"] = {{sized(33)}, {}};
    request.counters = counters_request{
        {{"reduction", {sized(65536), sized(4194311)}}, {"record_sums", {sized(1024)}}, {"transpose", {sized("64x64")}}}};
    const worker_job job = nlohmann::json(correctness_job_of(request)).get<worker_job>();
    REQUIRE(job.correctness->counters);
    CHECK(job.correctness->counters->problems.at("reduction") == std::vector<problem_size>{sized(65536), sized(4194311)});
    CHECK(job.correctness->counters->problems.at("transpose").at(0).word() == "64x64");
}

TEST_CASE("a correctness worker's ready names its parts, and is not a timing worker's") {
    const nlohmann::json wire = to_event(correctness_ready_event{{"A", "B"}});
    CHECK(wire.dump() == R"({"event":"correctness_ready","parts":["A","B"]})");
    CHECK(is_event<correctness_ready_event>(wire));
    CHECK_FALSE(is_event<timing_ready_event>(wire));
}

TEST_CASE("a timing worker's ready names the parts it prepared") {
    const nlohmann::json wire = to_event(timing_ready_event{{"A", "C"}});
    CHECK(wire.dump() == R"({"event":"timing_ready","parts":["A","C"]})");
    CHECK(is_event<timing_ready_event>(wire));
    CHECK(wire.get<timing_ready_event>().parts == std::vector<std::string>{"A", "C"});
}
