#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/report.hpp"

namespace course {

void write_file_atomic(const std::string& path, const std::string& content) {
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error("cannot write " + path + " (cannot create " + tmp + ")");
        out << content;
        out.flush();
        if (!out) throw std::runtime_error("cannot write " + path + " (write failed)");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw std::runtime_error("cannot write " + path + " (rename failed)");
    }
}

std::string save_progress(const lab_result& r, const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return "cannot create " + dir + ": " + ec.message();
    try {
        write_file_atomic(dir + "/" + r.lab + ".json", nlohmann::json(r).dump(2) + "\n");
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

std::string output_path_problem(const std::string& path) {
    namespace fs = std::filesystem;
    if (path.empty()) return "empty path";
    const fs::path p(path);
    if (fs::is_directory(p)) return path + " is a directory";
    const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return "folder " + dir.string() + " does not exist";
    if (::access(dir.c_str(), W_OK) != 0) return "folder " + dir.string() + " is not writable";
    if (fs::exists(p, ec) && ::access(p.c_str(), W_OK) != 0) return path + " is not writable";
    return "";
}

}  // namespace course
