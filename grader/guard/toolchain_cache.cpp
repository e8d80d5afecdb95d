#include "guard/toolchain_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/sha256.hpp"

namespace fs = std::filesystem;

namespace course::guard {

namespace {

std::string file_of(const std::string& dir, const std::string& key) { return dir + "/" + key + ".roots"; }

std::string program_stamp(const std::string& program) {
    std::error_code ec;
    const fs::path real = fs::canonical(program, ec);
    struct stat st {};
    if (ec || ::stat(real.c_str(), &st) != 0) return program + " (missing)";
    return real.string() + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec);
}

}  // namespace

std::string toolchain_key(const std::vector<std::string>& command, const std::string& probe,
                          const std::string& probe_text, const std::string& path_variable,
                          const std::vector<std::string>& programs) {
    // Each field ends in a NUL, which no argument holds: no two commands give one text.
    std::string text;
    for (const auto& a : command) text += (a == probe ? std::string("{probe}") : a) + '\0';
    text += std::string("\n") + '\0' + probe_text + '\0' + path_variable + '\0';
    for (const auto& p : programs) text += program_stamp(p) + '\0';
    return sha256_hex(text);
}

std::optional<std::vector<std::string>> read_toolchain_roots(const std::string& dir, const std::string& key) {
    if (dir.empty()) return std::nullopt;
    std::ifstream in(file_of(dir, key));
    if (!in) return std::nullopt;
    std::vector<std::string> roots;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line.front() != '/') return std::nullopt;
        roots.push_back(line);
    }
    if (roots.empty()) return std::nullopt;
    return roots;
}

bool write_toolchain_roots(const std::string& dir, const std::string& key, const std::vector<std::string>& roots) {
    if (dir.empty() || roots.empty()) return false;
    for (const auto& r : roots)
        if (r.empty() || r.front() != '/' || r.find('\n') != std::string::npos) return false;  // not one line each
    std::error_code ec;
    fs::create_directories(dir, ec);
    const std::string path = file_of(dir, key);
    const std::string tmp = path + "." + std::to_string(::getpid()) + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        for (const auto& r : roots) out << r << '\n';
        if (!out.flush()) {
            fs::remove(tmp, ec);
            return false;
        }
    }
    fs::rename(tmp, path, ec);
    if (!ec) return true;
    fs::remove(tmp, ec);
    return false;
}

}  // namespace course::guard
