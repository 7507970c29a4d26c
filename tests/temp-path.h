// Scratch paths for tests, unique to the process: two test runs on one machine (two checkouts,
// or a build's suite beside another's) must not write into each other's files.
#pragma once

#include <filesystem>
#include <string>

#include <unistd.h>

namespace hfsim::test {

/// `name` under the system's temporary directory, suffixed with this process's id.
inline std::filesystem::path TempPath(const std::string& name) {
  return std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
}

}  // namespace hfsim::test
