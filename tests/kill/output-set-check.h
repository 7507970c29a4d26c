// What an output directory holds, read independently of hfsim's own code: its files, the set
// its manifest (.hfsim-files.json) vouches for (every listed file present with its size and
// FNV-1a checksum), and whether a publication was cut short (.hfsim-publish.json). The kill
// test compares these with the complete sets of two commands.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace hfsim::test {

/// name (relative, "ptf/test.py") -> bytes.
using FileSet = std::map<std::string, std::string>;

inline std::string Bytes(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

inline uint64_t Fnv1a(const std::string& bytes) {
  uint64_t hash = 14695981039346656037ull;
  for (const unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

/// hfsim's bookkeeping and a sweep's working files: never part of a set.
inline bool IsBookkeeping(const std::string& top_name) {
  return top_name.rfind(".hfsim-", 0) == 0 || top_name == "sweep.csv.part";
}

/// Every regular file under `dir` but the bookkeeping (and what is inside staging
/// directories).
inline FileSet FilesIn(const std::filesystem::path& dir) {
  FileSet files;
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    const std::filesystem::path relative = std::filesystem::relative(it->path(), dir);
    if (IsBookkeeping(relative.begin()->string())) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) files[relative.string()] = Bytes(it->path());
  }
  return files;
}

/// The files the manifest lists, each as it is on disk, when every one is there with the
/// listed size and checksum; nullopt when there is no manifest or it disagrees with the files.
inline std::optional<FileSet> VouchedSet(const std::filesystem::path& dir) {
  if (!std::filesystem::exists(dir / ".hfsim-files.json")) return std::nullopt;
  const nlohmann::json manifest =
      nlohmann::json::parse(Bytes(dir / ".hfsim-files.json"), nullptr, false);
  if (!manifest.is_object() || !manifest.contains("files")) return std::nullopt;
  FileSet set;
  for (const nlohmann::json& entry : manifest["files"]) {
    const std::string name = entry["name"].get<std::string>();
    if (!std::filesystem::is_regular_file(dir / name)) return std::nullopt;
    std::string bytes = Bytes(dir / name);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(Fnv1a(bytes)));
    if (bytes.size() != entry["bytes"].get<uint64_t>() || entry["fnv1a64"] != hex) {
      return std::nullopt;
    }
    set[name] = std::move(bytes);
  }
  return set;
}

/// When a journal is there (a publication cut short): the new set as the journal's stage and
/// the directory hold it together (each file of the journal from the stage if still there,
/// else from the directory); nullopt without a journal.
inline std::optional<FileSet> JournalledSet(const std::filesystem::path& dir) {
  if (!std::filesystem::exists(dir / ".hfsim-publish.json")) return std::nullopt;
  const nlohmann::json journal =
      nlohmann::json::parse(Bytes(dir / ".hfsim-publish.json"), nullptr, false);
  FileSet set;
  if (!journal.is_object() || !journal.contains("publish")) return set;
  const std::filesystem::path stage = dir / journal["stage"].get<std::string>();
  for (const nlohmann::json& name : journal["publish"]) {
    const std::string file = name.get<std::string>();
    set[file] = Bytes(std::filesystem::exists(stage / file) ? stage / file : dir / file);
  }
  return set;
}

}  // namespace hfsim::test
