#include "sim/cli/output-files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "sim/cli/gnuplot-drawing.h"
#include "sim/scenario/input-file.h"

namespace hfsim {

namespace fs = std::filesystem;

namespace {

// Writes `contents` to the new file `path` and closes it; the reason of the first failure.
std::optional<std::string> WriteNewFile(const fs::path& path, std::string_view contents) {
  std::error_code error;
  fs::create_directories(path.parent_path(), error);
  if (error) {
    return fmt::format("cannot create the directory {}: {}", path.parent_path().string(),
                       error.message());
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fmt::format("cannot write the file: {}", std::strerror(errno));
  int failure = 0;
  for (size_t done = 0; done < contents.size() && failure == 0;) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) failure = n < 0 ? errno : EIO;
    if (n > 0) done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 && failure == 0) failure = errno;
  if (failure != 0) return fmt::format("cannot write the file: {}", std::strerror(failure));
  return std::nullopt;
}

// The lock on `<directory>/.hfsim-publish.lock` while a stage is made or a set is published:
// concurrent runs into one directory publish one after the other, never interleaved.
class PublishLock {
 public:
  explicit PublishLock(const fs::path& directory)
      : m_fd(LockFile((directory / kPublishLock).string(), true)) {}
  ~PublishLock() {
    if (m_fd >= 0) ::close(m_fd);
  }
  PublishLock(const PublishLock&) = delete;
  PublishLock& operator=(const PublishLock&) = delete;
  /// 0 when held, else the errno of the failure.
  int Error() const { return m_fd >= 0 ? 0 : -m_fd; }

 private:
  int m_fd;
};

}  // namespace

std::optional<WriteFailure> CheckOutputDirectory(const std::string& directory) {
  if (directory.empty()) return WriteFailure{"the output directory is an empty string", 2};
  struct stat info {};
  if (::stat(directory.c_str(), &info) != 0 || S_ISDIR(info.st_mode)) return std::nullopt;
  return WriteFailure{fmt::format("{}: is a file, not a directory; accepted: a directory, or a "
                                  "path where one can be made", directory), 2};
}

OutputFiles::~OutputFiles() {
  if (m_stage.empty()) return;
  // Removed while still locked: no other writer takes it for a dead one's meanwhile. Paths
  // allocate, and a destructor that throws while an exception unwinds is std::terminate: out
  // of memory here leaves the stage to the next writer's clean-up instead.
  try {
    std::error_code ignored;
    fs::remove_all(fs::path(m_directory) / m_stage, ignored);
  } catch (...) {
  }
  ::close(m_stage_fd);
}

bool OutputFiles::Staged() {
  if (!m_stage.empty()) return true;
  if (m_failure) return false;
  if (auto refusal = CheckOutputDirectory(m_directory)) {
    m_failure = refusal;
    return false;
  }
  const fs::path out(m_directory);
  std::error_code error;
  fs::create_directories(out, error);
  if (error) {
    m_failure = WriteFailure{fmt::format("{}: cannot create the output directory: {}",
                                         m_directory, error.message())};
    return false;
  }
  // Made and locked under the publish lock, so that a writer cleaning up dead writers' stages
  // never sees this one unlocked.
  const PublishLock lock(out);
  if (lock.Error() != 0) {
    m_failure = WriteFailure{fmt::format("{}: cannot lock the directory: {}", m_directory,
                                         std::strerror(lock.Error()))};
    return false;
  }
  std::string pattern = (out / (std::string(kStagePrefix) + "XXXXXX")).string();
  int fd = -1;
  if (::mkdtemp(pattern.data()) == nullptr ||
      (fd = ::open(pattern.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
      ::flock(fd, LOCK_EX) != 0) {
    const int reason = errno;
    if (fd >= 0) ::close(fd);
    fs::remove_all(pattern, error);
    m_failure = WriteFailure{fmt::format("{}: cannot create a staging directory there: {}",
                                         m_directory, std::strerror(reason))};
    return false;
  }
  m_stage = fs::path(pattern).filename().string();
  m_stage_fd = fd;
  return true;
}

void OutputFiles::Add(std::string name, std::string_view contents) {
  if (m_failure || !Staged()) return;
  if (auto problem = WriteNewFile(fs::path(m_directory) / m_stage / name, contents)) {
    m_failure = WriteFailure{fmt::format("{}: {}", (fs::path(m_directory) / name).string(),
                                         *problem)};
    return;
  }
  ListedFile file{name, contents.size(), Fnv1a64(contents)};
  const auto same = std::find_if(m_files.begin(), m_files.end(),
                                 [&](const ListedFile& f) { return f.name == name; });
  if (same != m_files.end()) {
    *same = std::move(file);
  } else {
    m_files.push_back(std::move(file));
  }
}

void OutputFiles::AddPicture(std::string script, std::string png) {
  m_pictures.emplace_back(std::move(script), std::move(png));
}

std::optional<WriteFailure> OutputFiles::Commit() {
  if (!Staged() || m_failure) return m_failure;
  const fs::path out(m_directory);
  const fs::path stage = out / m_stage;
  for (const auto& [script, png] : m_pictures) {
    std::string picture;
    if (auto problem = DrawWithGnuplot(stage.string(), script, png, picture)) {
      return WriteFailure{fmt::format("{} (for {})", *problem, (out / png).string())};
    }
    m_files.push_back({png, picture.size(), Fnv1a64(picture)});
  }
  if (auto problem = WriteNewFile(stage / kOutputManifest, ManifestText(m_files))) {
    return WriteFailure{fmt::format("{}: {}", (out / kOutputManifest).string(), *problem)};
  }
  const PublishLock lock(out);
  if (lock.Error() != 0) {
    return WriteFailure{fmt::format("{}: cannot lock the directory for publication: {}",
                                    m_directory, std::strerror(lock.Error()))};
  }
  RecoverOutputDirectory(out, m_stage);
  // The earlier set's files that this one does not have go.
  std::set<std::string> names;
  for (const ListedFile& file : m_files) names.insert(file.name);
  std::vector<ListedFile> stale;
  if (auto earlier = ReadManifest(out)) {
    for (ListedFile& file : *earlier) {
      if (!names.count(file.name)) stale.push_back(std::move(file));
    }
  }
  // Nothing this command read is replaced or removed: checked before anything moves.
  auto input_refusal = [&](const std::string& name) -> std::optional<WriteFailure> {
    // lstat: a link in the directory is replaced or removed itself, not what it points at.
    struct stat info {};
    if (::lstat((out / name).c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
    const auto role = InputRole(info.st_dev, info.st_ino);
    if (!role) return std::nullopt;
    return WriteFailure{fmt::format("{}: is {}, an input of this command, which this output set "
                                    "would {}; hfsim never writes over its inputs; accepted: "
                                    "another output directory", (out / name).string(), *role,
                                    names.count(name) ? "replace" : "remove"), 2};
  };
  for (const ListedFile& file : m_files) {
    if (auto refusal = input_refusal(file.name)) return refusal;
  }
  for (const ListedFile& file : stale) {
    if (auto refusal = input_refusal(file.name)) return refusal;
  }
  std::vector<std::string> order;
  for (const ListedFile& file : m_files) order.push_back(file.name);
  return PublishSet(out, m_stage, order, stale);
}

std::string OutputFiles::Describe() const {
  std::string out;
  auto add = [&](const std::string& name) {
    if (!out.empty()) out += ", ";
    out += (fs::path(m_directory) / name).string();
  };
  for (const ListedFile& file : m_files) {
    const bool picture = std::any_of(m_pictures.begin(), m_pictures.end(),
                                     [&](const auto& p) { return p.second == file.name; });
    if (!picture) add(file.name);
  }
  for (const auto& picture : m_pictures) add(picture.second);
  return out;
}

}  // namespace hfsim
