// Writes a command's output files all or nothing. Every file (and every picture gnuplot draws
// from them) is first written to a private staging directory inside the output directory, with
// a name no other run shares; only when all of them are complete are they renamed into place,
// and then `.hfsim-files.json` lists what was published with each file's size and checksum.
// So a failure, a full disk or a kill before publication leaves the earlier files untouched, two
// runs into one directory never mix their files, and a publication cut short (a kill between
// two renames) is detectable: the manifest is missing or disagrees with the files.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hfsim {

/// The manifest's name (docs/report.md, "Output files").
inline constexpr const char* kOutputManifest = ".hfsim-files.json";

class OutputFiles {
 public:
  explicit OutputFiles(std::string directory) : m_directory(std::move(directory)) {}

  /// A file `name` (may hold a subdirectory: "ptf/test.py") with these bytes.
  void Add(std::string name, std::string contents) {
    m_files.emplace_back(std::move(name), std::move(contents));
  }
  /// A picture `png` drawn by running `script` (a file added with Add) with gnuplot.
  void AddPicture(std::string script, std::string png) {
    m_pictures.emplace_back(std::move(script), std::move(png));
  }
  /// Stages every file, draws every picture, checks them, then publishes them together; an
  /// error message (naming the file) on failure, with nothing published.
  std::optional<std::string> Commit() const;
  /// "out/report.json, out/summary.csv, out/breakdown.png".
  std::string Describe() const;

 private:
  std::string m_directory;
  std::vector<std::pair<std::string, std::string>> m_files;     ///< name, contents
  std::vector<std::pair<std::string, std::string>> m_pictures;  ///< script, png
};

/// Opens (creating it) the file at `path` and takes the kernel's exclusive lock on it (flock),
/// waiting for it when `wait`. The open descriptor, which holds the lock until it is closed or
/// the process ends however it ends; or -errno (-EWOULDBLOCK: another process holds it).
int LockFile(const std::string& path, bool wait);

/// One file replaced whole (`hfsim convert -o FILE`): written to a temporary name of its own
/// beside `path` (mkstemp: concurrent writers never share it), flushed and closed with every
/// error checked, then renamed over `path`. An error message on failure, `path` untouched.
std::optional<std::string> ReplaceFile(const std::string& path, const std::string& contents);

}  // namespace hfsim
