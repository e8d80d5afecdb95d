#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "core/sha256.hpp"

using course::read_pinned;
using course::sha256_file;
using course::sha256_hex;

// FIPS 180-4's examples, and lengths around the padding's block boundary (55 bytes fit
// in one block with the length, 56 do not), checked against coreutils' sha256sum.
TEST_CASE("SHA-256 of the standard test vectors") {
    CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(sha256_hex(std::string(1000000, 'a')) ==
          "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    CHECK(sha256_hex("The quick brown fox jumps over the lazy dog") ==
          "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592");
}

TEST_CASE("SHA-256 at the padding's block boundaries") {
    CHECK(sha256_hex(std::string(55, 'a')) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    CHECK(sha256_hex(std::string(56, 'a')) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
    CHECK(sha256_hex(std::string(63, 'a')) == "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34");
    CHECK(sha256_hex(std::string(64, 'a')) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
    CHECK(sha256_hex(std::string(65, 'a')) == "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0");
}

TEST_CASE("SHA-256 hashes bytes, not characters: zero and high bytes count") {
    CHECK(sha256_hex(std::string("\x00\xff\x80", 3)) ==
          "f742b965f156c10374bc23aea96e3a8aff8facd6fc079defeaa30219ad86f211");
}

TEST_CASE("SHA-256 of a file, and of a file that cannot be read") {
    const std::string path = "test_sha256_input.bin";
    {
        std::ofstream out(path, std::ios::binary);
        out << "abc";
    }
    CHECK(sha256_file(path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    std::remove(path.c_str());
    CHECK(sha256_file(path) == "");
    CHECK(sha256_file("/nonexistent/folder/kernels.cu") == "");
}

// A batch's file, which a student's code may have replaced by something else: only a
// regular file's bytes with the pinned hash are read, and nothing put there throws or waits.
TEST_CASE("read_pinned reads a regular file's bytes when they are the pinned ones, and nothing else") {
    const std::string path = "test_read_pinned.json";
    {
        std::ofstream out(path, std::ios::binary);
        out << "abc";
    }
    const std::string abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    std::string why;
    SUBCASE("the pinned bytes") {
        const auto bytes = read_pinned(path, abc, why);
        REQUIRE(bytes);
        CHECK(*bytes == "abc");
    }
    SUBCASE("other bytes") {
        CHECK_FALSE(read_pinned(path, std::string(64, '0'), why));
        CHECK(why == path + " has changed since the batch wrote it");
    }
    SUBCASE("a folder") {
        const std::string folder = "test_read_pinned_folder";
        ::mkdir(folder.c_str(), 0755);
        CHECK_FALSE(read_pinned(folder, abc, why));
        CHECK(why == "cannot read " + folder + ": not a regular file");
        ::rmdir(folder.c_str());
    }
    SUBCASE("a FIFO, whose open would wait for a writer") {
        const std::string fifo = "test_read_pinned_fifo";
        std::remove(fifo.c_str());
        REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
        CHECK_FALSE(read_pinned(fifo, abc, why));
        CHECK(why == "cannot read " + fifo + ": not a regular file");
        std::remove(fifo.c_str());
    }
    SUBCASE("a link, even to the pinned bytes, and a link to a device that never ends") {
        const std::string link = "test_read_pinned_link";
        for (const std::string target : {path, std::string("/dev/zero")}) {
            std::remove(link.c_str());
            REQUIRE(::symlink(target.c_str(), link.c_str()) == 0);
            CHECK_FALSE(read_pinned(link, abc, why));
            CHECK(why == "cannot read " + link + ": Too many levels of symbolic links");
        }
        std::remove(link.c_str());
    }
    std::remove(path.c_str());
}
