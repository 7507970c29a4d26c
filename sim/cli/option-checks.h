// Checks on command-line values that CLI11 2.1 does not make by itself: it reads "-1" into an
// unsigned option as 18446744073709551615 (strtoull wraps), it takes "" as a directory, and its
// ExistingFile says "File does not exist" for a symlink loop or a file it may not read.
#pragma once

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <CLI/CLI.hpp>

#include "base/name-table.h"

namespace hfsim {

/// Digits only: for every unsigned option, checked before CLI11 converts the text.
inline CLI::Validator NonNegativeInteger() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
          return "got '" + text + "'; accepted: a non-negative integer";
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

/// An input file that exists and is not a directory; otherwise the system's reason.
inline CLI::Validator ReadableFile() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        struct stat info {};
        if (::stat(path.c_str(), &info) != 0) {
          return "cannot open '" + path + "': " + std::strerror(errno);
        }
        if (S_ISDIR(info.st_mode)) return "'" + path + "' is a directory; accepted: a file";
        return {};
      },
      "FILE");
}

}  // namespace hfsim
