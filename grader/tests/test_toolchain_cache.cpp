#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "guard/toolchain_cache.hpp"

using course::guard::read_toolchain_roots;
using course::guard::toolchain_key;
using course::guard::write_toolchain_roots;

namespace fs = std::filesystem;

namespace {

struct scratch_dir {
    std::string path;
    scratch_dir() {
        char name[] = "/tmp/toolchain_cache_test_XXXXXX";
        path = ::mkdtemp(name);
    }
    ~scratch_dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

const std::vector<std::string> nvcc_probe = {"/usr/local/cuda/bin/nvcc", "-O3", "-std=c++17", "-x", "cu",
                                             "/scratch/a/toolchain_probe.cu"};

std::string key_of(const std::vector<std::string>& command, const std::string& probe,
                   const std::string& path_variable = "/usr/bin:/bin", const std::string& text = "#include <cmath>\n",
                   const std::vector<std::string>& programs = {}) {
    return toolchain_key(command, probe, text, path_variable, programs);
}

}  // namespace

TEST_CASE("one key for the same compile wherever its probe file lies") {
    std::vector<std::string> elsewhere = nvcc_probe;
    elsewhere.back() = "/scratch/b/toolchain_probe.cu";
    CHECK(key_of(nvcc_probe, "/scratch/a/toolchain_probe.cu") ==
          key_of(elsewhere, "/scratch/b/toolchain_probe.cu"));
    CHECK(key_of(nvcc_probe, "/scratch/a/toolchain_probe.cu").size() == 64);
}

TEST_CASE("another flag, PATH, probe text or compiler gives another key") {
    const std::string probe = "/scratch/a/toolchain_probe.cu";
    const std::string base = key_of(nvcc_probe, probe);
    std::vector<std::string> other = nvcc_probe;
    other.insert(other.begin() + 1, "-I/home/ana/include");
    CHECK(key_of(other, probe) != base);
    CHECK(key_of(nvcc_probe, probe, "/opt/gcc-14/bin:/usr/bin:/bin") != base);
    CHECK(key_of(nvcc_probe, probe, "/usr/bin:/bin", "#include <cmath>\n#include <cstdio>\n") != base);
    // Arguments are not simply joined: "-O3" "x" is not "-O" "3x".
    CHECK(key_of({"cc", "-O3", "x"}, "p") != key_of({"cc", "-O", "3x"}, "p"));
}

TEST_CASE("a compiler that changes on disk gives another key") {
    scratch_dir d;
    const std::string compiler = d.path + "/cc";
    std::ofstream(compiler) << "one";
    const std::string before = key_of(nvcc_probe, "p", "/usr/bin", "t", {compiler});
    CHECK(key_of(nvcc_probe, "p", "/usr/bin", "t", {compiler}) == before);
    std::ofstream(compiler) << "a longer, newer compiler";
    CHECK(key_of(nvcc_probe, "p", "/usr/bin", "t", {compiler}) != before);
    fs::remove(compiler);
    CHECK(key_of(nvcc_probe, "p", "/usr/bin", "t", {compiler}) != before);
}

TEST_CASE("kept folders are read back as written, under their key only") {
    scratch_dir d;
    const std::string dir = d.path + "/guard/toolchain";  // made on the first write
    const std::vector<std::string> roots = {"/usr/include/c++/12", "/usr/local/cuda-13.0/targets/x86_64-linux/include"};
    CHECK_FALSE(read_toolchain_roots(dir, "k1").has_value());
    REQUIRE(write_toolchain_roots(dir, "k1", roots));
    const auto back = read_toolchain_roots(dir, "k1");
    REQUIRE(back.has_value());
    CHECK(*back == roots);
    CHECK_FALSE(read_toolchain_roots(dir, "k2").has_value());
    // Nothing is left beside it.
    int files = 0;
    for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file() ? 1 : 0;
    CHECK(files == 1);
}

TEST_CASE("a kept file that is not a list of absolute folders is not used") {
    scratch_dir d;
    std::ofstream(d.path + "/k.roots") << "/usr/include\nrelative/include\n";
    CHECK_FALSE(read_toolchain_roots(d.path, "k").has_value());
    std::ofstream(d.path + "/empty.roots") << "";
    CHECK_FALSE(read_toolchain_roots(d.path, "empty").has_value());
    std::ofstream(d.path + "/blank.roots") << "/usr/include\n\n";
    CHECK_FALSE(read_toolchain_roots(d.path, "blank").has_value());
}

TEST_CASE("nothing is kept without a folder, for no folders, or for a folder that is not one line") {
    scratch_dir d;
    CHECK_FALSE(write_toolchain_roots("", "k", {"/usr/include"}));
    CHECK_FALSE(read_toolchain_roots("", "k").has_value());
    CHECK_FALSE(write_toolchain_roots(d.path, "k", {}));
    CHECK_FALSE(write_toolchain_roots(d.path, "k", {"/usr/include\n/home/ana"}));
    CHECK_FALSE(write_toolchain_roots(d.path, "k", {"include"}));
    CHECK_FALSE(read_toolchain_roots(d.path, "k").has_value());
}

TEST_CASE("a folder that cannot be written keeps nothing, and says so") {
    scratch_dir d;
    const std::string file = d.path + "/a_file";
    std::ofstream(file) << "x";
    CHECK_FALSE(write_toolchain_roots(file + "/below", "k", {"/usr/include"}));
}
