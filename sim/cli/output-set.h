// The set of files a command has published in an output directory, as the directory records it,
// and the steps that replace one set with the next (docs/report.md, "Output files"):
//
//   .hfsim-files.json    the manifest: each file of the set with its size and FNV-1a checksum;
//                        written last, so a set it vouches for is whole
//   .hfsim-publish.json  the journal of a publication under way: the staging directory that
//                        holds the new set, its files, and the old set's files to remove;
//                        present only between the old manifest's removal and the new one's
//                        arrival, so a kill there leaves a publication the next writer finishes
//   .hfsim-publish.lock  the lock (flock) that publications and recoveries take in turn
//   .hfsim-stage-XXXXXX  a writer's staging directory, locked (flock) while its writer lives
//
// A published set replaces the previous one whole: a file the old manifest lists that the new
// set does not have is removed, but only if it still has the bytes the manifest gives (a file
// the user changed, or any file no manifest lists, is the user's and stays).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cli/output-path.h"

namespace hfsim {

/// The manifest's name (docs/report.md, "Output files").
inline constexpr const char* kOutputManifest = ".hfsim-files.json";
/// The publication journal's name.
inline constexpr const char* kPublishJournal = ".hfsim-publish.json";
/// The lock publications take.
inline constexpr const char* kPublishLock = ".hfsim-publish.lock";
/// Staging directories' names start with this.
inline constexpr const char* kStagePrefix = ".hfsim-stage-";

/// One file of a set, as the manifest lists it.
struct ListedFile {
  std::string name;
  uint64_t bytes = 0;
  uint64_t fnv1a64 = 0;
};

/// FNV-1a, 64 bits: enough to tell one run's file from another's.
uint64_t Fnv1a64(std::string_view bytes);

/// A name a set may hold: relative, below the directory ("ptf/test.py"), with no empty, "." or
/// ".." part, and not hfsim's own bookkeeping (".hfsim-..."). Only such names are published or
/// removed: a manifest or journal written by someone else cannot reach outside the directory.
bool IsSetName(const std::string& name);

/// The manifest's text for `files`.
std::string ManifestText(const std::vector<ListedFile>& files);

/// The files `dir`'s manifest lists (set names only), or nullopt without a readable manifest.
std::optional<std::vector<ListedFile>> ReadManifest(const std::filesystem::path& dir);

/// Under the publish lock: finishes a publication that a kill cut short (the journal and its
/// stage are there), and removes staging directories whose writers have died. `own_stage` (a
/// name in `dir`) is left alone.
void RecoverOutputDirectory(const std::filesystem::path& dir, const std::string& own_stage);

/// Under the publish lock: renames the files `names` and the manifest from `dir`/`stage` into
/// `dir`, journalled, and removes the old set's files `stale` (those still as listed).
std::optional<WriteFailure> PublishSet(const std::filesystem::path& dir, const std::string& stage,
                                       const std::vector<std::string>& names,
                                       const std::vector<ListedFile>& stale);

/// "DIR holds a publication cut short ..." when `dir` holds a journal (a kill landed between
/// two renames: its files are a mix until an hfsim command writing there finishes it), else
/// nullopt. For readers of a directory hfsim wrote (`run --chakra`).
std::optional<std::string> InterruptedPublication(const std::filesystem::path& dir);

/// Opens (creating it) the file at `path` and takes the kernel's exclusive lock on it (flock),
/// waiting for it when `wait`. The open descriptor, which holds the lock until it is closed or
/// the process ends however it ends; or -errno (-EWOULDBLOCK: another process holds it).
int LockFile(const std::string& path, bool wait);

}  // namespace hfsim
