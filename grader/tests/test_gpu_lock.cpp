#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "supervisor/gpu_lock.hpp"

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
        CHECK(free_for(path + ".turnstile", LOCK_EX));  // passed through, not kept
    }
    CHECK(free_for(path, LOCK_EX));
}

TEST_CASE("no path, no lock; an unusable path is an error, not a silent pass") {
    const gpu_lock none("");
    CHECK_NOTHROW(none.exclusive());
    const gpu_lock bad("/nonexistent-folder/gpu0");
    CHECK_THROWS_AS(bad.shared(), std::runtime_error);
}
