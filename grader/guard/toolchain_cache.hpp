#pragma once
// The guard's toolchain probe (guard_dependencies.cpp) compiles a file of standard and
// CUDA includes with the student's compile command, to learn which folders hold the
// toolchain's headers. Its answer is the same for every file compiled with that command
// (0.6 s of nvcc each time), so the guard keeps it in --toolchain-cache DIR, under a key
// of everything it depends on. Only a fast path: a file the cached folders would refuse is
// checked again against a fresh probe (guard_run::check_dependencies).
#include <optional>
#include <string>
#include <vector>

namespace course::guard {

// The probe's compile command (with `probe` where its file is named), the probe's text,
// the environment that steers the compilers' search for headers (PATH, CPATH, NVCC_*, the
// working folder: toolchain_environment()) and each of `programs` as it is on disk (path,
// size, modification time; the guard itself among them): a new toolchain, other flags or a
// new guard give another key.
std::string toolchain_key(const std::vector<std::string>& command, const std::string& probe,
                          const std::string& probe_text, const std::string& environment,
                          const std::vector<std::string>& programs);

// What toolchain_key() reads of this process's environment and working folder.
std::string toolchain_environment();

// The folders kept under `key`; nothing when there are none, when the file is not whole as
// write_toolchain_roots() wrote it (a line that is not a folder below /, no end line), or
// when it or its folder is not this user's alone (owned by another, writable by others).
std::optional<std::vector<std::string>> read_toolchain_roots(const std::string& dir, const std::string& key);

// Keeps `roots` under `key`: written beside and renamed, so that graders building at once
// read either nothing or the whole list. False when it could not (a read-only build: the
// guard then probes each time).
bool write_toolchain_roots(const std::string& dir, const std::string& key, const std::vector<std::string>& roots);

}  // namespace course::guard
