#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace course {

// SHA-256 (FIPS 180-4) of `bytes`, as 64 lowercase hex digits. The reports name the
// graded file by it, so a grade can be matched to the exact bytes that earned it; the
// course writes its own rather than add a crypto library for 60 lines.
std::string sha256_hex(const std::string& bytes);

// The most bytes read_pinned reads: a batch's files are far smaller.
inline constexpr std::uint64_t max_pinned_bytes = 64ull << 20;

// The SHA-256 of a regular file's bytes, or "" when it cannot be read.
std::string sha256_file(const std::string& path);

// The bytes of `path`, read once, when they are those `sha256` names ("" names any): a
// file the batch wrote for its grades, which must not read what someone wrote over it
// since. Otherwise nullopt, with why not in `why`; never throws, and never waits: a
// symbolic link, a directory, a device or a FIFO put in its place is refused.
std::optional<std::string> read_pinned(const std::string& path, const std::string& sha256, std::string& why);

}  // namespace course
