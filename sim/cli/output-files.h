// Writes a command's output files all or nothing. Every file (and every picture gnuplot draws
// from them) is first written to a private staging directory inside the output directory, with
// a name no other run shares; only when all of them are complete are they published together
// (output-set.h): renamed into place under a lock, journalled, the previous set's files that
// this one does not have removed, and `.hfsim-files.json` listing what was published with each
// file's size and checksum. So a failure, a full disk or a kill before publication leaves the
// earlier set untouched, two runs into one directory never mix their files, a finished set
// never keeps files of an earlier one, and a publication cut short by a kill between two
// renames is finished by the next command that writes there.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/cli/output-path.h"
#include "sim/cli/output-set.h"

namespace hfsim {

class OutputFiles {
 public:
  explicit OutputFiles(std::string directory) : m_directory(std::move(directory)) {}
  /// Removes the staging directory of a set that was not committed.
  ~OutputFiles();
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;

  /// A file `name` (a set name, output-set.h: "report.json", "ptf/test.py") with these bytes,
  /// written to the staging directory at once (the output directory is made if missing), so a
  /// large set (a Chakra export) is never held in memory whole. A failure is kept for Commit.
  void Add(std::string name, std::string_view contents);
  /// A picture `png` drawn by running `script` (a file added with Add) with gnuplot.
  void AddPicture(std::string script, std::string png);
  /// Draws every picture, checks them, then publishes the set; a failure naming the file, with
  /// nothing published: exit code 2 when a file of the set (or one it would remove) is an input
  /// of this command, or the directory is not one; 1 when the machine failed.
  std::optional<WriteFailure> Commit();
  /// "out/report.json, out/summary.csv, out/breakdown.png".
  std::string Describe() const;
  /// The first failure to write a file so far (Commit reports it).
  const std::optional<WriteFailure>& Failure() const { return m_failure; }

 private:
  // Makes the output directory and the staging directory in it (once); false on failure.
  bool Staged();

  std::string m_directory;
  std::string m_stage;     ///< the staging directory's name in m_directory, once made
  int m_stage_fd = -1;     ///< holds the stage's lock while this writer lives
  std::vector<ListedFile> m_files;
  std::vector<std::pair<std::string, std::string>> m_pictures;  ///< script, png
  std::optional<WriteFailure> m_failure;
};

/// Checks `directory` before a command's work: an existing path that is not a directory (or a
/// link to one) is refused, exit 2.
std::optional<WriteFailure> CheckOutputDirectory(const std::string& directory);

}  // namespace hfsim
