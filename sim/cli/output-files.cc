#include "sim/cli/output-files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/cli/gnuplot-drawing.h"

namespace hfsim {

namespace fs = std::filesystem;

namespace {

// FNV-1a, 64 bits: enough to tell one run's file from another's in the manifest.
uint64_t Checksum(const std::string& bytes) {
  uint64_t hash = 14695981039346656037ull;
  for (const unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

// Writes `contents` to `file` and closes it; the reason of the first call that failed.
std::optional<std::string> CloseWritten(std::FILE* file, const std::string& contents) {
  int error = 0;
  if (std::fwrite(contents.data(), 1, contents.size(), file) != contents.size()) error = errno;
  if (std::fflush(file) != 0 && error == 0) error = errno;
  if (std::fclose(file) != 0 && error == 0) error = errno;
  if (error != 0) return fmt::format("cannot write the file: {}", std::strerror(error));
  return std::nullopt;
}

std::optional<std::string> WriteFile(const fs::path& path, const std::string& contents) {
  std::error_code error;
  fs::create_directories(path.parent_path(), error);
  if (error) {
    return fmt::format("{}: cannot create the directory: {}", path.parent_path().string(),
                       error.message());
  }
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return fmt::format("cannot write the file: {}", std::strerror(errno));
  return CloseWritten(file, contents);
}

// The lock on `<directory>/.hfsim-publish.lock` while a set of files is renamed into place:
// concurrent runs into one directory publish one after the other, never interleaved.
class PublishLock {
 public:
  explicit PublishLock(const fs::path& directory)
      : m_fd(LockFile((directory / ".hfsim-publish.lock").string(), true)) {}
  ~PublishLock() {
    if (m_fd >= 0) close(m_fd);
  }
  PublishLock(const PublishLock&) = delete;
  PublishLock& operator=(const PublishLock&) = delete;
  /// 0 when held, else the errno of the failure.
  int Error() const { return m_fd >= 0 ? 0 : -m_fd; }

 private:
  int m_fd;
};

// The staging directory, removed with everything in it when the commit ends.
class Stage {
 public:
  explicit Stage(const fs::path& parent) {
    std::string pattern = (parent / ".hfsim-stage-XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr) m_path = pattern;
  }
  ~Stage() {
    if (m_path.empty()) return;
    std::error_code ignored;
    fs::remove_all(m_path, ignored);
  }
  Stage(const Stage&) = delete;
  Stage& operator=(const Stage&) = delete;
  const fs::path& Path() const { return m_path; }

 private:
  fs::path m_path;
};

}  // namespace

std::optional<std::string> OutputFiles::Commit() const {
  if (m_directory.empty()) return std::string("the output directory is an empty string");
  const fs::path out(m_directory);
  std::error_code error;
  fs::create_directories(out, error);
  if (error) {
    return fmt::format("{}: cannot create the output directory: {}", m_directory,
                       error.message());
  }
  const Stage stage(out);
  if (stage.Path().empty()) {
    return fmt::format("{}: cannot create a staging directory there: {}", m_directory,
                       std::strerror(errno));
  }
  // Everything is written and checked in the stage first.
  std::vector<std::string> names;
  nlohmann::json manifest = {{"files", nlohmann::json::array()}};
  auto list = [&](const std::string& name, const std::string& bytes) {
    names.push_back(name);
    manifest["files"].push_back({{"name", name},
                                 {"bytes", bytes.size()},
                                 {"fnv1a64", fmt::format("{:016x}", Checksum(bytes))}});
  };
  for (const auto& [name, contents] : m_files) {
    if (auto problem = WriteFile(stage.Path() / name, contents)) {
      return fmt::format("{}: {}", (out / name).string(), *problem);
    }
    list(name, contents);
  }
  for (const auto& [script, png] : m_pictures) {
    std::string picture;
    if (auto problem = DrawWithGnuplot(stage.Path().string(), script, png, picture)) {
      return fmt::format("{} (for {})", *problem, (out / png).string());
    }
    list(png, picture);
  }
  if (auto problem = WriteFile(stage.Path() / kOutputManifest, manifest.dump(2) + "\n")) {
    return fmt::format("{}: {}", (out / kOutputManifest).string(), *problem);
  }
  // Publication: the old manifest goes first and the new one comes last, so a set cut short
  // between two renames has no manifest that vouches for it.
  const PublishLock lock(out);
  if (lock.Error() != 0) {
    return fmt::format("{}: cannot lock the directory for publication: {}", m_directory,
                       std::strerror(lock.Error()));
  }
  fs::remove(out / kOutputManifest, error);
  if (error) {
    return fmt::format("{}: cannot replace the file: {}", (out / kOutputManifest).string(),
                       error.message());
  }
  names.push_back(kOutputManifest);
  for (const std::string& name : names) {
    const fs::path target = out / name;
    fs::create_directories(target.parent_path(), error);
    if (!error) fs::rename(stage.Path() / name, target, error);
    if (error) {
      return fmt::format("{}: cannot replace the file: {} (the set in {} is incomplete: it has "
                         "no {})", target.string(), error.message(), m_directory,
                         kOutputManifest);
    }
  }
  return std::nullopt;
}

int LockFile(const std::string& path, bool wait) {
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return -errno;
  int result = 0;
  while ((result = flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {
  }
  if (result == 0) return fd;
  const int error = errno;
  close(fd);
  return -error;
}

std::optional<std::string> ReplaceFile(const std::string& path, const std::string& contents) {
  const fs::path target(path);
  const fs::path directory = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string pattern = (directory / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = mkstemp(pattern.data());
  if (fd < 0) return fmt::format("{}: cannot write the file: {}", path, std::strerror(errno));
  std::FILE* file = fdopen(fd, "wb");
  if (file == nullptr) {
    close(fd);
    std::remove(pattern.c_str());
    return fmt::format("{}: cannot write the file: {}", path, std::strerror(errno));
  }
  if (auto problem = CloseWritten(file, contents)) {
    std::remove(pattern.c_str());
    return fmt::format("{}: {}", path, *problem);
  }
  // mkstemp makes the file private (0600); the result should read like any other output.
  std::error_code error;
  fs::permissions(pattern, fs::perms::owner_read | fs::perms::owner_write |
                               fs::perms::group_read | fs::perms::others_read, error);
  fs::rename(pattern, target, error);
  if (error) {
    std::remove(pattern.c_str());
    return fmt::format("{}: cannot replace the file: {}", path, error.message());
  }
  return std::nullopt;
}

std::string OutputFiles::Describe() const {
  std::string out;
  auto add = [&](const std::string& name) {
    if (!out.empty()) out += ", ";
    out += (fs::path(m_directory) / name).string();
  };
  for (const auto& file : m_files) add(file.first);
  for (const auto& picture : m_pictures) add(picture.second);
  return out;
}

}  // namespace hfsim
