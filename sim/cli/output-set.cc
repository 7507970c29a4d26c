#include "sim/cli/output-set.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace hfsim {

namespace fs = std::filesystem;

namespace {

// A manifest or journal larger than this is not hfsim's (4,096 rank files list in 0.5 MB).
constexpr uint64_t kMaxBookkeepingBytes = uint64_t{64} << 20;

// The text of the regular file `path` (not a link: bookkeeping is never followed out of the
// directory), or nullopt.
std::optional<std::string> ReadBookkeeping(const fs::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode) ||
      static_cast<uint64_t>(info.st_size) > kMaxBookkeepingBytes) {
    return std::nullopt;
  }
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  if (!file && !file.eof()) return std::nullopt;
  return text.str();
}

std::optional<ListedFile> ListedFrom(const nlohmann::json& entry) {
  if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string() ||
      !entry.contains("bytes") || !entry["bytes"].is_number_unsigned() ||
      !entry.contains("fnv1a64") || !entry["fnv1a64"].is_string()) {
    return std::nullopt;
  }
  ListedFile file;
  file.name = entry["name"].get<std::string>();
  file.bytes = entry["bytes"].get<uint64_t>();
  const std::string hex = entry["fnv1a64"].get<std::string>();
  char* end = nullptr;
  errno = 0;
  file.fnv1a64 = std::strtoull(hex.c_str(), &end, 16);
  if (hex.size() != 16 || errno != 0 || end != hex.c_str() + hex.size() || !IsSetName(file.name)) {
    return std::nullopt;
  }
  return file;
}

nlohmann::json ListedJson(const ListedFile& file) {
  return {{"name", file.name}, {"bytes", file.bytes},
          {"fnv1a64", fmt::format("{:016x}", file.fnv1a64)}};
}

// `dir`/`name` with every folder on the way a real directory, not a link: what is removed
// stays inside `dir` whatever a manifest says.
bool InsideWithoutLinks(const fs::path& dir, const std::string& name) {
  fs::path at = dir;
  const fs::path relative(name);
  for (auto part = relative.begin(); part != relative.end(); ++part) {
    if (std::next(part) == relative.end()) break;
    at /= *part;
    struct stat info {};
    if (::lstat(at.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) return false;
  }
  return true;
}

// Removes `dir`/`file.name` if it is a regular file with the listed size and checksum, then
// the folders above it that this leaves empty.
void RemoveIfUnchanged(const fs::path& dir, const ListedFile& file) {
  if (!IsSetName(file.name) || !InsideWithoutLinks(dir, file.name)) return;
  const fs::path path = dir / file.name;
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode) ||
      static_cast<uint64_t>(info.st_size) != file.bytes) {
    return;
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (Fnv1a64(bytes.str()) != file.fnv1a64) return;
  ::unlink(path.c_str());
  for (fs::path folder = fs::path(file.name).parent_path(); !folder.empty();
       folder = folder.parent_path()) {
    if (::rmdir((dir / folder).c_str()) != 0) break;  // not empty: someone's files are there
  }
}

bool IsStageName(const std::string& name) {
  const std::string prefix = kStagePrefix;
  if (name.size() != prefix.size() + 6 || name.compare(0, prefix.size(), prefix) != 0) {
    return false;
  }
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (!std::isalnum(static_cast<unsigned char>(name[i]))) return false;
  }
  return true;
}

// Renames `dir`/`stage`/`name` to `dir`/`name` (making its folders): 0 or the errno.
int MoveIntoPlace(const fs::path& dir, const std::string& stage, const std::string& name) {
  const fs::path target = dir / name;
  std::error_code error;
  fs::create_directories(target.parent_path(), error);
  if (error) return error.value();
  return ::rename((dir / stage / name).c_str(), target.c_str()) == 0 ? 0 : errno;
}

// Finishes the publication `journal` describes: the files still in its stage are moved into
// place, the old set's files removed, the manifest moved last.
void FinishJournal(const fs::path& dir, const nlohmann::json& journal) {
  if (!journal.is_object() || !journal.contains("stage") || !journal["stage"].is_string()) return;
  const std::string stage = journal["stage"].get<std::string>();
  if (!IsStageName(stage)) return;
  if (journal.contains("publish") && journal["publish"].is_array()) {
    for (const nlohmann::json& name : journal["publish"]) {
      if (!name.is_string() || !IsSetName(name.get<std::string>())) continue;
      struct stat info {};
      if (::lstat((dir / stage / name.get<std::string>()).c_str(), &info) != 0) continue;
      MoveIntoPlace(dir, stage, name.get<std::string>());
    }
  }
  if (journal.contains("remove") && journal["remove"].is_array()) {
    for (const nlohmann::json& entry : journal["remove"]) {
      if (const auto file = ListedFrom(entry)) RemoveIfUnchanged(dir, *file);
    }
  }
  struct stat info {};
  if (::lstat((dir / stage / kOutputManifest).c_str(), &info) == 0) {
    MoveIntoPlace(dir, stage, kOutputManifest);
  }
  std::error_code ignored;
  fs::remove_all(dir / stage, ignored);
}

// Writes the journal whole: to a temporary name, then renamed into place.
int WriteJournal(const fs::path& dir, const nlohmann::json& journal) {
  std::string temporary = (dir / (std::string(kPublishJournal) + ".XXXXXX")).string();
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) return errno;
  const std::string text = journal.dump() + "\n";
  int error = 0;
  for (size_t done = 0; done < text.size() && error == 0;) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) error = n < 0 ? errno : EIO;
    if (n > 0) done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temporary.c_str(), (dir / kPublishJournal).c_str()) != 0) error = errno;
  if (error != 0) ::unlink(temporary.c_str());
  return error;
}

}  // namespace

uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t hash = 14695981039346656037ull;
  for (const unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

bool IsSetName(const std::string& name) {
  if (name.empty() || name.size() > 4096 || name.front() == '/' ||
      name.find('\0') != std::string::npos) {
    return false;
  }
  bool first = true;
  for (size_t at = 0; at <= name.size();) {
    const size_t end = std::min(name.find('/', at), name.size());
    const std::string_view part(name.data() + at, end - at);
    if (part.empty() || part == "." || part == "..") return false;
    if (first && part.starts_with(".hfsim-")) return false;
    first = false;
    at = end + 1;
  }
  return true;
}

std::string ManifestText(const std::vector<ListedFile>& files) {
  nlohmann::json manifest = {{"files", nlohmann::json::array()}};
  for (const ListedFile& file : files) manifest["files"].push_back(ListedJson(file));
  return manifest.dump(2) + "\n";
}

std::optional<std::vector<ListedFile>> ReadManifest(const fs::path& dir) {
  const auto text = ReadBookkeeping(dir / kOutputManifest);
  if (!text) return std::nullopt;
  const nlohmann::json manifest = nlohmann::json::parse(*text, nullptr, false);
  if (!manifest.is_object() || !manifest.contains("files") || !manifest["files"].is_array()) {
    return std::nullopt;
  }
  std::vector<ListedFile> files;
  for (const nlohmann::json& entry : manifest["files"]) {
    if (auto file = ListedFrom(entry)) files.push_back(std::move(*file));
  }
  return files;
}

void RecoverOutputDirectory(const fs::path& dir, const std::string& own_stage) {
  if (const auto text = ReadBookkeeping(dir / kPublishJournal)) {
    FinishJournal(dir, nlohmann::json::parse(*text, nullptr, false));
  }
  ::unlink((dir / kPublishJournal).c_str());
  std::error_code error;
  std::vector<std::string> orphans;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    // A journal's temporary file is only ever written under the lock this caller holds.
    if (name.starts_with(std::string(kPublishJournal) + ".")) orphans.push_back(name);
    if (!IsStageName(name) || name == own_stage) continue;
    // A living writer holds its stage's lock: one that can be taken belongs to the dead.
    const int fd = ::open((dir / name).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) orphans.push_back(name);
    ::close(fd);
  }
  for (const std::string& name : orphans) fs::remove_all(dir / name, error);
}

std::optional<WriteFailure> PublishSet(const fs::path& dir, const std::string& stage,
                                       const std::vector<std::string>& names,
                                       const std::vector<ListedFile>& stale) {
  nlohmann::json journal = {{"stage", stage}, {"publish", names},
                            {"remove", nlohmann::json::array()}};
  for (const ListedFile& file : stale) journal["remove"].push_back(ListedJson(file));
  if (const int error = WriteJournal(dir, journal)) {
    return WriteFailure{fmt::format("{}: cannot write the file: {}",
                                    (dir / kPublishJournal).string(), std::strerror(error))};
  }
  // The old manifest goes first and the new one comes last: between them the journal says
  // what the directory is becoming.
  if (::unlink((dir / kOutputManifest).c_str()) != 0 && errno != ENOENT) {
    const int error = errno;
    ::unlink((dir / kPublishJournal).c_str());
    return WriteFailure{fmt::format("{}: cannot replace the file: {}",
                                    (dir / kOutputManifest).string(), std::strerror(error))};
  }
  for (const std::string& name : names) {
    if (const int error = MoveIntoPlace(dir, stage, name)) {
      ::unlink((dir / kPublishJournal).c_str());
      return WriteFailure{fmt::format("{}: cannot replace the file: {} (the set in {} is "
                                      "incomplete: it has no {})", (dir / name).string(),
                                      std::strerror(error), dir.string(), kOutputManifest)};
    }
  }
  for (const ListedFile& file : stale) RemoveIfUnchanged(dir, file);
  if (const int error = MoveIntoPlace(dir, stage, kOutputManifest)) {
    ::unlink((dir / kPublishJournal).c_str());
    return WriteFailure{fmt::format("{}: cannot write the file: {}",
                                    (dir / kOutputManifest).string(), std::strerror(error))};
  }
  ::unlink((dir / kPublishJournal).c_str());
  return std::nullopt;
}

std::optional<std::string> InterruptedPublication(const fs::path& dir) {
  struct stat info {};
  if (::lstat((dir / kPublishJournal).c_str(), &info) != 0) return std::nullopt;
  return fmt::format("{} holds a publication that a kill cut short ({}): its files are a mix "
                     "of two sets until it is finished; any hfsim command writing to {} "
                     "finishes it first, or rerun the command that wrote it",
                     dir.string(), (dir / kPublishJournal).string(), dir.string());
}

int LockFile(const std::string& path, bool wait) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return -errno;
  int result = 0;
  while ((result = ::flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {
  }
  if (result == 0) return fd;
  const int error = errno;
  ::close(fd);
  return -error;
}

}  // namespace hfsim
