#pragma once
// What course_cc_guard needs of the system: running a tool under the guard's limits,
// finding programs and real paths, reading files, a private scratch folder.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "process/worker_process.hpp"

namespace course::guard {

struct bounds {
    std::uint64_t cpu_seconds = 300;
    std::uint64_t memory_mb = 4096;
    static constexpr std::uint64_t file_size_bytes = 512ull << 20;
    double wall_seconds() const { return 2.0 * static_cast<double>(cpu_seconds); }
};

// Runs `argv` in its own process group under the CPU, address-space, file-size and
// core-dump limits and a wall-clock timeout of twice the CPU limit, keeping the first
// `keep_bytes` of its output (0: none). The environment gets LC_ALL=C (messages the guard
// can read) and a fixed SOURCE_DATE_EPOCH, so that __DATE__ and __TIME__ are the same in
// every pass over the file.
worker_run run_bounded(const std::vector<std::string>& argv, const bounds& b, std::size_t keep_bytes);

using course::find_program;  // process/worker_process.hpp

// The absolute path with every symlink resolved, "" when it does not resolve.
std::string real_path(const std::string& path);

// Reads at most `max_bytes`; false when the file cannot be read or is longer.
bool read_file(const std::string& path, std::string& out, std::size_t max_bytes);

// A private folder (0700) under TMPDIR or /tmp, removed with everything in it.
class scratch_dir {
public:
    scratch_dir();
    ~scratch_dir();
    scratch_dir(const scratch_dir&) = delete;
    scratch_dir& operator=(const scratch_dir&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

}  // namespace course::guard
