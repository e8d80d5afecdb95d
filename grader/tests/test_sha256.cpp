#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "core/sha256.hpp"

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
