// Runs the hfsim binary as a user would, for the end-to-end CLI tests: the command line goes to
// the shell, stdout and stderr are captured together through a log file unique to the process
// (ctest runs test executables in parallel).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace hfsim::test {

struct CliResult {
  int exit_code;
  std::string output;  ///< stdout and stderr together
};

inline std::string Slurp(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

/// `binary arguments`, with its exit code (-1 if it did not exit normally) and output.
inline CliResult RunHfsim(const std::string& binary, const std::string& arguments) {
  const std::filesystem::path log = std::filesystem::temp_directory_path() /
                                    ("hfsim-cli-" + std::to_string(::getpid()) + ".log");
  const std::string command = binary + " " + arguments + " > " + log.string() + " 2>&1";
  const int status = std::system(command.c_str());
  std::string output = Slurp(log);
  std::filesystem::remove(log);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, std::move(output)};
}

}  // namespace hfsim::test
