#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "supervisor/gpu_lock.hpp"
#include "supervisor/gpu_turn.hpp"

using namespace course;

namespace {

std::string temp_lock_path() {
    char dir[] = "/tmp/gpu_lock_testXXXXXX";
    REQUIRE(::mkdtemp(dir) != nullptr);
    return std::string(dir) + "/gpu0";
}

// Whether another open of `path` could take the lock now without waiting.
bool free_for(const std::string& path, int operation) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
    const bool got = ::flock(fd, operation | LOCK_NB) == 0;
    ::close(fd);
    return got;
}

}  // namespace

TEST_CASE("correctness runs share the GPU; a timing run has it alone") {
    const std::string path = temp_lock_path();
    const gpu_lock lock(path);
    {
        const auto a = lock.shared();
        const auto b = lock.shared();  // two graders' correctness runs at once
        CHECK(free_for(path, LOCK_SH));
        CHECK_FALSE(free_for(path, LOCK_EX));  // no timing meanwhile
    }
    CHECK(free_for(path, LOCK_EX));
    {
        const auto t = lock.exclusive();
        CHECK_FALSE(free_for(path, LOCK_SH));  // no correctness run during timing
        CHECK_FALSE(free_for(path, LOCK_EX));
        CHECK(free_for(path + ".timers", LOCK_SH));        // another timer may queue behind it
        CHECK_FALSE(free_for(path + ".timers", LOCK_EX));  // no correctness run may start
    }
    CHECK(free_for(path, LOCK_EX));
    CHECK(free_for(path + ".timers", LOCK_EX));  // let go with the GPU
    {
        const auto a = lock.shared();
        CHECK(free_for(path + ".timers", LOCK_EX));  // passed through, not kept
    }
}

TEST_CASE("timers that wait go before correctness runs that come after them, one after another") {
    const std::string path = temp_lock_path();
    const gpu_lock lock(path);
    std::mutex m;
    std::vector<std::string> order;
    const auto note = [&](const std::string& what) {
        const std::lock_guard<std::mutex> g(m);
        order.push_back(what);
    };
    const auto pause = [] { std::this_thread::sleep_for(std::chrono::milliseconds(150)); };
    auto running = std::make_unique<gpu_lock::hold>(lock.shared());  // a correctness run under way
    const auto time_alone = [&](const std::string& who) {
        const auto h = lock.exclusive();
        note(who + " starts");
        pause();
        note(who + " ends");
    };
    std::thread t1(time_alone, "timer 1");
    pause();  // timer 1 now waits for the running correctness run
    CHECK_FALSE(free_for(path + ".timers", LOCK_EX));
    std::thread c([&] {
        const auto h = lock.shared();
        note("correctness");
    });
    pause();
    std::thread t2(time_alone, "timer 2");
    pause();  // timer 2 now waits too, holding PATH.timers shared like timer 1
    CHECK(order.empty());  // all three wait for the running one
    running.reset();
    t1.join();
    t2.join();
    c.join();
    // Both timers wait on the same exclusive lock, so which of them goes first is the
    // kernel's choice; what the lock promises is that both go before the correctness run
    // that came after them, and never at the same time.
    const std::vector<std::string> one_then_two{"timer 1 starts", "timer 1 ends", "timer 2 starts",
                                                "timer 2 ends", "correctness"};
    const std::vector<std::string> two_then_one{"timer 2 starts", "timer 2 ends", "timer 1 starts",
                                                "timer 1 ends", "correctness"};
    CHECK((order == one_then_two || order == two_then_one));
}

TEST_CASE("one grading's racecheck and correctness cases hold the GPU shared at once, and a timer still gets its turn") {
    // Two holds of one process (two threads), while another grader's timer waits between
    // them: the second hold waits for the timer, the timer for the first hold, and nothing
    // waits for the second; so all three end.
    const std::string path = temp_lock_path();
    const gpu_lock lock(path);
    std::mutex m;
    std::vector<std::string> order;
    const auto note = [&](const std::string& what) {
        std::lock_guard<std::mutex> g(m);
        order.push_back(what);
    };
    auto racecheck = std::make_unique<gpu_lock::hold>(lock.shared());
    std::thread timer([&] {
        const auto held = lock.exclusive();
        note("timer");
    });
    // The timer has claimed PATH.timers once a correctness run may no longer pass it.
    for (int i = 0; i < 500 && free_for(path + ".timers", LOCK_EX); ++i) usleep(10 * 1000);
    REQUIRE_FALSE(free_for(path + ".timers", LOCK_EX));
    std::thread correctness([&] {
        const auto held = lock.shared();
        note("correctness");
    });
    usleep(200 * 1000);
    CHECK(order.empty());  // the timer waits for racecheck, correctness for the timer
    note("racecheck ends");
    racecheck.reset();
    timer.join();
    correctness.join();
    CHECK(order == std::vector<std::string>{"racecheck ends", "timer", "correctness"});
}

TEST_CASE("no path, no lock; an unusable path is an error, not a silent pass") {
    const gpu_lock none("");
    CHECK_NOTHROW(none.exclusive());
    const gpu_lock bad("/nonexistent-folder/gpu0");
    CHECK_THROWS_AS(bad.shared(), std::runtime_error);
}

TEST_CASE("a timing worker makes its inputs holding nothing and times with the GPU alone") {
    const std::string path = temp_lock_path();
    gpu_turn turn{gpu_lock(path), gpu_turn::phase::timing};
    const nlohmann::json ready = {{"event", "timing_ready"}, {"parts", {"A", "B"}}};
    turn.worker_starts();
    CHECK(free_for(path, LOCK_EX));  // another grader may time while the inputs are made
    CHECK(turn.answer({{"event", "timing_begin"}, {"part", "A"}}).empty());
    CHECK(turn.answer({{"event", "correctness_ready"}, {"parts", {"A"}}}).empty());  // not this phase's
    CHECK(free_for(path, LOCK_EX));
    CHECK(turn.answer(ready) == "go\n");
    CHECK_FALSE(free_for(path, LOCK_SH));  // now alone
    // A second "ready" from the same worker (the student's code could print one) is not
    // answered, and the GPU is not let go meanwhile.
    CHECK(turn.answer(ready).empty());
    CHECK_FALSE(free_for(path, LOCK_SH));
    // A restarted worker (after a crash) holds nothing until it is ready again.
    turn.worker_starts();
    CHECK(free_for(path, LOCK_EX));
    CHECK(turn.answer(ready) == "go\n");
    CHECK_FALSE(free_for(path, LOCK_SH));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    turn.finish();
    CHECK(free_for(path, LOCK_EX));
    CHECK(turn.seconds_held() >= 0.05);  // from each "go" to the end of its worker's hold
    CHECK(turn.seconds_held() < 5);
}

TEST_CASE("a worker that ends before it was told to go is the grader's failure, not a part's") {
    const std::string path = temp_lock_path();
    gpu_turn turn{gpu_lock(path), gpu_turn::phase::correctness};
    turn.worker_starts();
    // It never said it was ready (it could not make its inputs, say).
    try {
        turn.blame_before_go("correctness", "exit code 2 (std::bad_alloc)");
        FAIL("no exception");
    } catch (const std::runtime_error& e) {
        CHECK(std::string(e.what()) ==
              "the correctness worker exit code 2 (std::bad_alloc) before it was ready to run a kernel");
    }
    // Once told to go, the student's code has run: the part is blamed as usual.
    CHECK(turn.answer({{"event", "correctness_ready"}, {"parts", {"A"}}}) == "go\n");
    CHECK_NOTHROW(turn.blame_before_go("correctness", "killed by SIGSEGV"));
    turn.finish();
}

TEST_CASE("a correctness worker makes its inputs holding nothing and runs its cases with the GPU shared") {
    const std::string path = temp_lock_path();
    gpu_turn turn{gpu_lock(path), gpu_turn::phase::correctness};
    const nlohmann::json ready = {{"event", "correctness_ready"}, {"parts", {"A", "B"}}};
    turn.worker_starts();
    CHECK(free_for(path, LOCK_EX));  // another grader may time while the inputs are made
    // A timing worker's ready event is not this phase's: no answer, no hold.
    CHECK(turn.answer({{"event", "timing_ready"}, {"parts", {"A"}}}).empty());
    CHECK(free_for(path, LOCK_EX));
    CHECK(turn.answer(ready) == "go\n");
    CHECK(free_for(path, LOCK_SH));  // other graders' cases go on
    CHECK_FALSE(free_for(path, LOCK_EX));  // no timing meanwhile
    CHECK(turn.answer(ready).empty());  // one answer per worker
    CHECK_FALSE(free_for(path, LOCK_EX));
    // A restarted worker (after a crash) holds nothing until it is ready again.
    turn.worker_starts();
    CHECK(free_for(path, LOCK_EX));
    CHECK(turn.answer(ready) == "go\n");
    CHECK_FALSE(free_for(path, LOCK_EX));
    turn.finish();
    CHECK(free_for(path, LOCK_EX));
}

TEST_CASE("each worker's start to its first ready event is added up, its hold and a second ready left out") {
    const std::string path = temp_lock_path();
    gpu_turn turn{gpu_lock(path), gpu_turn::phase::correctness};
    const nlohmann::json ready = {{"event", "correctness_ready"}, {"parts", {"A"}}};
    CHECK(turn.seconds_to_ready() == 0.0);
    turn.worker_starts();
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    CHECK(turn.answer(ready) == "go\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // held: not before ready
    CHECK(turn.answer(ready).empty());
    const double first = turn.seconds_to_ready();
    CHECK(first >= 0.06);
    CHECK(first < 1.4);
    turn.worker_starts();  // a restarted worker's start counts too
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    CHECK(turn.answer(ready) == "go\n");
    turn.finish();
    CHECK(turn.seconds_to_ready() >= first + 0.06);
    CHECK(turn.seconds_to_ready() < first + 1.4);
    CHECK(turn.seconds_held() >= 1.5);
}

TEST_CASE("without a lock file a timing worker is told to go at once") {
    gpu_turn turn{gpu_lock(""), gpu_turn::phase::timing};
    turn.worker_starts();
    CHECK(turn.answer({{"event", "timing_ready"}, {"parts", {"A"}}}) == "go\n");
    turn.finish();
}

TEST_CASE("a GPU lock that cannot be taken stops the worker and is reported") {
    // A worker takes nothing before it is ready, then is stopped, and the phase reports why.
    for (const auto& [phase, event] : {std::pair{gpu_turn::phase::timing, "timing_ready"},
                                       std::pair{gpu_turn::phase::correctness, "correctness_ready"}}) {
        gpu_turn turn{gpu_lock("/nonexistent-folder/gpu0"), phase};
        CHECK_NOTHROW(turn.worker_starts());
        CHECK(turn.answer({{"event", event}, {"parts", {"A"}}}) == "stop\n");
        // The stopped worker is not blamed on a part, and no other worker is started.
        CHECK_THROWS_AS(turn.blame_before_go("timing", "exit code 2"), std::runtime_error);
        CHECK_THROWS_AS(turn.worker_starts(), std::runtime_error);
        CHECK_THROWS_AS(turn.finish(), std::runtime_error);
    }
}

TEST_CASE("the time spent waiting for the GPU is counted") {
    const std::string path = temp_lock_path();
    double waited = 0;
    const gpu_lock lock(path, &waited);
    { const auto free_now = lock.shared(); }
    CHECK(waited < 0.1);
    // Another grader times for 0.3 s: a correctness run waits that long.
    const int other = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    REQUIRE(::flock(other, LOCK_EX) == 0);
    std::thread timer([other] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        ::close(other);
    });
    { const auto after_timing = lock.shared(); }
    timer.join();
    CHECK(waited >= 0.25);
    CHECK(waited < 5);
}
