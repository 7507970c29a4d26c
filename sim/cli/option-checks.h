// Checks on command-line values that CLI11 2.1 does not make by itself: it reads "-1" into an
// unsigned option as 18446744073709551615 (strtoull wraps), it takes "" as a directory, and its
// ExistingFile says "File does not exist" for a symlink loop or a file it may not read.
#pragma once

#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>

#include <CLI/CLI.hpp>

#include "sim/scenario/input-file.h"
#include "base/name-table.h"

namespace hfsim {

/// Digits only, and within 64 bits: for every unsigned option, checked before CLI11 converts
/// the text (its strtoull would clamp 2^64 and above to 2^64 - 1 without a word).
inline CLI::Validator NonNegativeInteger() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
          return "got '" + text + "'; accepted: a non-negative integer";
        }
        uint64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size()) {
          return "got '" + text + "'; accepted: a non-negative integer up to 2^64 - 1 (" +
                 std::to_string(UINT64_MAX) + ")";
        }
        return {};
      },
      "UINT");
}

/// One of an enum's names (base/name-table.h), the spellings its scenario key takes too.
template <typename Enum, size_t N>
CLI::Validator OneOf(const NameTable<Enum, N>& table) {
  return CLI::IsMember(NamesOf(table));
}

/// A path for --out: an empty one would silently mean "nowhere".
inline CLI::Validator NonEmptyPath() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? "got an empty string; accepted: a path" : std::string();
      },
      "PATH");
}

/// An input file that exists and is a regular file (or standard input, /dev/stdin: see
/// input-file.h); otherwise the system's reason, or what it is (a FIFO would block the read).
inline CLI::Validator ReadableFile() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        struct stat info {};
        int fd = -1;
        if (!NamesOwnDescriptor(path, fd) && ::stat(path.c_str(), &info) != 0) {
          return "cannot open '" + path + "': " + std::strerror(errno);
        }
        if (S_ISDIR(info.st_mode)) return "'" + path + "' is a directory; accepted: a file";
        if (const auto refusal = InputKindRefusal(path)) return "'" + path + "' " + *refusal;
        return {};
      },
      "FILE");
}

}  // namespace hfsim
