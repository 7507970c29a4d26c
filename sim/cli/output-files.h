// Writes a command's output files so that a failure never leaves a half-written file behind:
// each file goes to a temporary name in the output directory and is renamed into place only
// once it has been written completely.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hfsim {

class OutputFiles {
 public:
  explicit OutputFiles(std::string directory) : m_directory(std::move(directory)) {}

  void Add(std::string name, std::string contents) {
    m_files.emplace_back(std::move(name), std::move(contents));
  }
  /// Creates the directory if needed and writes every file; an error message on failure.
  std::optional<std::string> Commit() const;
  /// "out/report.json, out/summary.csv".
  std::string Describe() const;

 private:
  std::string m_directory;
  std::vector<std::pair<std::string, std::string>> m_files;
};

}  // namespace hfsim
