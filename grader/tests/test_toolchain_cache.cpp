#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
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
                   const std::string& environment = "PATH=/usr/bin:/bin", const std::string& text = "#include <cmath>\n",
                   const std::vector<std::string>& programs = {}) {
    return toolchain_key(command, probe, text, environment, programs);
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
    CHECK(key_of(nvcc_probe, probe, "PATH=/opt/gcc-14/bin:/usr/bin:/bin") != base);
    CHECK(key_of(nvcc_probe, probe, "/usr/bin:/bin", "#include <cmath>\n#include <cstdio>\n") != base);
    // Arguments are not simply joined: "-O3" "x" is not "-O" "3x".
    CHECK(key_of({"cc", "-O3", "x"}, "p") != key_of({"cc", "-O", "3x"}, "p"));
}

TEST_CASE("the environment read for the key holds the header search's variables and the folder") {
    const std::string env = course::guard::toolchain_environment();
    CHECK(env.find("CPATH") != std::string::npos);
    CHECK(env.find("NVCC_PREPEND_FLAGS") != std::string::npos);
    CHECK(env.find("cwd=" + fs::current_path().string()) != std::string::npos);
    ::setenv("CPATH", "/home/ana/include", 1);
    CHECK(course::guard::toolchain_environment() != env);
    ::unsetenv("CPATH");
    CHECK(course::guard::toolchain_environment() == env);
}

TEST_CASE("a compiler that changes on disk gives another key") {
    scratch_dir d;
    const std::string compiler = d.path + "/cc";
    std::ofstream(compiler) << "one";
    const std::string before = key_of(nvcc_probe, "p", "/usr/bin", "t", {compiler});
    CHECK(key_of(nvcc_probe, "p", "/usr/bin", "t", {compiler}) == before);
    // The same size, a new modification time: a reinstall of the same release.
    fs::last_write_time(compiler, fs::last_write_time(compiler) + std::chrono::seconds(5));
    CHECK(key_of(nvcc_probe, "p", "/usr/bin", "t", {compiler}) != before);
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

// What write_toolchain_roots() writes, by hand, to spoil it line by line.
void write_by_hand(const std::string& dir, const std::string& key, const std::string& text, unsigned mode = 0600) {
    const std::string path = dir + "/" + key + ".roots";
    std::ofstream(path) << text;
    fs::permissions(path, fs::perms(mode));
}

TEST_CASE("a kept file is used only whole, as written") {
    scratch_dir d;
    fs::permissions(d.path, fs::perms(0755));
    write_by_hand(d.path, "k", "/usr/include\n/usr/lib/gcc\nend k\n");
    REQUIRE(read_toolchain_roots(d.path, "k").has_value());  // the hand-made file is a good one
    CHECK(*read_toolchain_roots(d.path, "k") == std::vector<std::string>{"/usr/include", "/usr/lib/gcc"});
    write_by_hand(d.path, "k", "/usr/include\n/usr/lib/gcc\n");  // cut short: no end line
    CHECK_FALSE(read_toolchain_roots(d.path, "k").has_value());
    write_by_hand(d.path, "k", "/usr/include\nend other\n");  // another key's end
    CHECK_FALSE(read_toolchain_roots(d.path, "k").has_value());
    write_by_hand(d.path, "k", "/usr/include\nrelative/include\nend k\n");
    CHECK_FALSE(read_toolchain_roots(d.path, "k").has_value());
    write_by_hand(d.path, "k", "/usr/include\n/\nend k\n");  // the whole file system
    CHECK_FALSE(read_toolchain_roots(d.path, "k").has_value());
    write_by_hand(d.path, "k", "/usr/include\n\nend k\n");
    CHECK_FALSE(read_toolchain_roots(d.path, "k").has_value());
    write_by_hand(d.path, "k", "end k\n");
    CHECK_FALSE(read_toolchain_roots(d.path, "k").has_value());
}

TEST_CASE("a kept file or folder that others may write is not used") {
    scratch_dir d;
    fs::permissions(d.path, fs::perms(0755));
    write_by_hand(d.path, "k", "/usr/include\nend k\n", 0620);
    CHECK_FALSE(read_toolchain_roots(d.path, "k").has_value());
    write_by_hand(d.path, "k", "/usr/include\nend k\n", 0602);
    CHECK_FALSE(read_toolchain_roots(d.path, "k").has_value());
    write_by_hand(d.path, "k", "/usr/include\nend k\n", 0644);
    CHECK(read_toolchain_roots(d.path, "k").has_value());
    fs::permissions(d.path, fs::perms(0775));
    CHECK_FALSE(read_toolchain_roots(d.path, "k").has_value());
    fs::permissions(d.path, fs::perms(0755));
    // A name that is not a regular file (a FIFO would hang a reader that waits on it).
    const std::string fifo = d.path + "/f.roots";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_FALSE(read_toolchain_roots(d.path, "f").has_value());
    fs::create_symlink(d.path + "/k.roots", d.path + "/s.roots");
    CHECK_FALSE(read_toolchain_roots(d.path, "s").has_value());
}

TEST_CASE("nothing is kept without a folder, for no folders, or for a folder that is not one line") {
    scratch_dir d;
    CHECK_FALSE(write_toolchain_roots("", "k", {"/usr/include"}));
    CHECK_FALSE(read_toolchain_roots("", "k").has_value());
    CHECK_FALSE(write_toolchain_roots(d.path, "k", {}));
    CHECK_FALSE(write_toolchain_roots(d.path, "k", {"/usr/include\n/home/ana"}));
    CHECK_FALSE(write_toolchain_roots(d.path, "k", {"include"}));
    CHECK_FALSE(write_toolchain_roots(d.path, "k", {"/"}));
    CHECK_FALSE(read_toolchain_roots(d.path, "k").has_value());
}

TEST_CASE("a folder that cannot be written keeps nothing, and says so") {
    scratch_dir d;
    const std::string file = d.path + "/a_file";
    std::ofstream(file) << "x";
    CHECK_FALSE(write_toolchain_roots(file + "/below", "k", {"/usr/include"}));
}
