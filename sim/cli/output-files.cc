#include "sim/cli/output-files.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace hfsim {

std::optional<std::string> OutputFiles::Commit() const {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(m_directory, error);
  if (error) return fmt::format("{}: cannot create the output directory: {}", m_directory, error.message());
  for (const auto& [name, contents] : m_files) {
    // A name may hold a subdirectory ("ptf/test.py"): the temporary sits next to its target.
    const fs::path target = fs::path(m_directory) / name;
    const fs::path temporary =
        target.parent_path() / ("." + target.filename().string() + ".partial");
    fs::create_directories(target.parent_path(), error);
    if (error) return fmt::format("{}: cannot create the directory: {}", target.parent_path().string(), error.message());
    {
      std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
      file << contents;
      file.close();
      if (!file) {
        fs::remove(temporary, error);
        return fmt::format("{}: cannot write the file", target.string());
      }
    }
    fs::rename(temporary, target, error);
    if (error) {
      std::error_code ignored;
      fs::remove(temporary, ignored);
      return fmt::format("{}: cannot replace the file: {}", target.string(), error.message());
    }
  }
  return std::nullopt;
}

std::string OutputFiles::Describe() const {
  std::string out;
  for (const auto& [name, contents] : m_files) {
    if (!out.empty()) out += ", ";
    out += (std::filesystem::path(m_directory) / name).string();
  }
  return out;
}

}  // namespace hfsim
