#include "guard/toolchain_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/sha256.hpp"

namespace fs = std::filesystem;

namespace course::guard {

namespace {

constexpr std::size_t most_bytes = 64u << 10;

std::string file_of(const std::string& dir, const std::string& key) { return dir + "/" + key + ".roots"; }
std::string end_line(const std::string& key) { return "end " + key; }

std::string program_stamp(const std::string& program) {
    std::error_code ec;
    const fs::path real = fs::canonical(program, ec);
    struct stat st {};
    if (ec || ::stat(real.c_str(), &st) != 0) return program + " (missing)";
    return real.string() + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec);
}

// Only what this user wrote and no one else may change: anyone else who could write there
// could widen what counts as the toolchain's.
bool private_to_us(const struct stat& st) { return st.st_uid == ::geteuid() && (st.st_mode & 022) == 0; }

}  // namespace

std::string toolchain_key(const std::vector<std::string>& command, const std::string& probe,
                          const std::string& probe_text, const std::string& environment,
                          const std::vector<std::string>& programs) {
    // Each field ends in a NUL, which no argument holds: no two commands give one text.
    std::string text;
    for (const auto& a : command) text += (a == probe ? std::string("{probe}") : a) + '\0';
    text += std::string("\n") + '\0' + probe_text + '\0' + environment + '\0';
    for (const auto& p : programs) text += program_stamp(p) + '\0';
    return sha256_hex(text);
}

std::string toolchain_environment() {
    // gcc's and nvcc's own variables for where headers and the host compiler are found.
    static const char* const names[] = {"PATH",          "CPATH",           "C_INCLUDE_PATH",    "CPLUS_INCLUDE_PATH",
                                        "GCC_EXEC_PREFIX", "COMPILER_PATH", "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS",
                                        "NVCC_CCBIN"};
    std::string text;
    for (const char* name : names) {
        const char* value = std::getenv(name);
        text += std::string(name) + (value ? "=" + std::string(value) : " unset") + '\0';
    }
    std::error_code ec;
    return text + "cwd=" + fs::current_path(ec).string();
}

std::optional<std::vector<std::string>> read_toolchain_roots(const std::string& dir, const std::string& key) {
    if (dir.empty()) return std::nullopt;
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || !private_to_us(st)) return std::nullopt;
    const int fd = ::open(file_of(dir, key).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    std::string text;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && private_to_us(st) &&
        static_cast<std::size_t>(st.st_size) <= most_bytes) {
        text.resize(static_cast<std::size_t>(st.st_size));
        if (::read(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) text.clear();
    }
    ::close(fd);
    // Whole, as written: every line a folder, then the end line naming the key.
    const std::string end = end_line(key) + "\n";
    if (text.size() <= end.size() || text.compare(text.size() - end.size(), end.size(), end) != 0)
        return std::nullopt;
    std::vector<std::string> roots;
    std::istringstream in(text.substr(0, text.size() - end.size()));
    std::string line;
    while (std::getline(in, line)) {
        if (line.size() < 2 || line.front() != '/') return std::nullopt;  // never the whole file system
        roots.push_back(line);
    }
    if (roots.empty()) return std::nullopt;
    return roots;
}

bool write_toolchain_roots(const std::string& dir, const std::string& key, const std::vector<std::string>& roots) {
    if (dir.empty() || roots.empty()) return false;
    std::string text;
    for (const auto& r : roots) {
        if (r.size() < 2 || r.front() != '/' || r.find('\n') != std::string::npos) return false;  // one line each
        text += r + "\n";
    }
    text += end_line(key) + "\n";
    std::error_code ec;
    if (fs::create_directories(dir, ec)) fs::permissions(dir, fs::perms(0755), ec);
    // A name of its own (mkstemp, mode 0600), then renamed: graders building at once, here
    // or on other nodes of a shared folder, read either nothing or one whole list.
    std::string tmp = file_of(dir, key) + ".XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) return false;
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (written && ::rename(tmp.c_str(), file_of(dir, key).c_str()) == 0) return true;
    ::unlink(tmp.c_str());
    return false;
}

}  // namespace course::guard
