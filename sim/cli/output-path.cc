#include "sim/cli/output-path.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <variant>

#include <fmt/format.h>

#include "sim/scenario/input-file.h"

namespace hfsim {

namespace {

namespace fs = std::filesystem;

// How the final path (after symbolic links) is written.
enum class Way { kReplace, kWriteThrough, kDescriptor };

struct Target {
  Way way = Way::kReplace;
  std::string path;  ///< the final path, after symbolic links
  int fd = -1;       ///< kDescriptor: this process's descriptor
};

// "out.json" or "out.json (a link to /data/out.json)": the user's path, and where it led.
std::string Named(const std::string& given, const std::string& final_path) {
  return given == final_path ? given : fmt::format("{} (a link to {})", given, final_path);
}

WriteFailure Refused(const std::string& name, std::string_view what) {
  return {fmt::format("{}: {}", name, what), 2};
}

// The refusal for a file this command has read, or nullopt.
std::optional<WriteFailure> InputRefusal(const std::string& name, const struct stat& info) {
  if (!S_ISREG(info.st_mode)) return std::nullopt;
  const auto role = InputRole(info.st_dev, info.st_ino);
  if (!role) return std::nullopt;
  return Refused(name, fmt::format("is {}, an input of this command; hfsim never writes over "
                                   "its inputs; accepted: another path", *role));
}

// Follows `given` through symbolic links (as open(2) would, at most 40) to what is written.
std::variant<Target, WriteFailure> Resolve(const std::string& given) {
  std::string path = given;
  for (int hop = 0; hop < 40; ++hop) {
    const std::string name = Named(given, path);
    int fd = -1;
    if (NamesOwnDescriptor(fs::path(path).lexically_normal().string(), fd)) {
      struct stat info {};
      if (::fstat(fd, &info) != 0) {
        return WriteFailure{fmt::format("{}: cannot write: descriptor {} is not open", name, fd)};
      }
      if (auto refusal = InputRefusal(name, info)) return *refusal;
      return Target{Way::kDescriptor, path, fd};
    }
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) {
      if (errno == ENOENT) return Target{Way::kReplace, path};  // created (its folder must exist)
      return WriteFailure{fmt::format("{}: cannot write the file: {}", name, std::strerror(errno))};
    }
    if (S_ISLNK(info.st_mode)) {
      std::string link(4096, '\0');
      const ssize_t n = ::readlink(path.c_str(), link.data(), link.size());
      if (n < 0 || static_cast<size_t>(n) >= link.size()) {
        return WriteFailure{fmt::format("{}: cannot read the symbolic link: {}", name,
                                        n < 0 ? std::strerror(errno) : "too long")};
      }
      link.resize(static_cast<size_t>(n));
      const fs::path next(link);
      path = next.is_absolute() ? link : (fs::path(path).parent_path() / next).string();
      continue;
    }
    if (S_ISREG(info.st_mode)) {
      if (auto refusal = InputRefusal(name, info)) return *refusal;
      return Target{Way::kReplace, path};
    }
    if (S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode)) return Target{Way::kWriteThrough, path};
    if (S_ISDIR(info.st_mode)) return Refused(name, "is a directory; accepted: a file's path");
    if (S_ISBLK(info.st_mode)) {
      return Refused(name, "is a block device, which hfsim never writes over; accepted: a "
                           "file's path, a character device (/dev/null) or a FIFO");
    }
    return Refused(name, "is a socket; accepted: a file's path, a character device "
                         "(/dev/null) or a FIFO");
  }
  return Refused(given, "too many levels of symbolic links");
}

// SIGPIPE held back while writing to a FIFO or pipe whose reader has gone: the write fails
// with EPIPE and is reported, instead of the signal ending the process without a word.
class PipeSignalHeld {
 public:
  PipeSignalHeld() {
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &m_old);
  }
  ~PipeSignalHeld() {
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    const timespec now{0, 0};
    while (sigtimedwait(&pipe, nullptr, &now) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
  }
  PipeSignalHeld(const PipeSignalHeld&) = delete;
  PipeSignalHeld& operator=(const PipeSignalHeld&) = delete;

 private:
  sigset_t m_old;
};

// Every byte to `fd`; 0 or the errno of the failure.
int WriteAll(int fd, std::string_view bytes) {
  const PipeSignalHeld held;
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

std::optional<WriteFailure> WriteThrough(const std::string& name, const std::string& path,
                                         std::string_view contents) {
  // No O_CREAT, no O_TRUNC: a device or FIFO is written, never made or emptied. A FIFO's open
  // waits for a reader, as the shell's `>` does.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return WriteFailure{fmt::format("{}: cannot write: {}", name, std::strerror(errno))};
  struct stat info {};
  int error = ::fstat(fd, &info) != 0 ? errno : 0;
  if (error == 0 && !S_ISCHR(info.st_mode) && !S_ISFIFO(info.st_mode)) {
    ::close(fd);  // replaced since it was looked at: written by the rules again, by the caller
    return WriteFailure{fmt::format("{}: changed while it was being written; nothing written",
                                    name)};
  }
  if (error == 0) error = WriteAll(fd, contents);
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) return WriteFailure{fmt::format("{}: cannot write: {}", name, std::strerror(error))};
  return std::nullopt;
}

std::optional<WriteFailure> WriteDescriptor(const std::string& name, int fd,
                                            std::string_view contents) {
  // What this process already printed to the descriptor goes first.
  if (fd == 1) {
    std::cout.flush();
    std::fflush(stdout);
  }
  if (const int error = WriteAll(fd, contents)) {
    return WriteFailure{fmt::format("{}: cannot write: {}", name, std::strerror(error))};
  }
  return std::nullopt;
}

// Written to a temporary name of its own beside `path` (mkstemp: concurrent writers never share
// it), flushed and closed with every error checked, then renamed over `path`.
std::optional<WriteFailure> Replace(const std::string& name, const std::string& path,
                                    std::string_view contents) {
  const fs::path target(path);
  const fs::path directory = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string temporary = (directory / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) {
    return WriteFailure{fmt::format("{}: cannot write the file: {}", name, std::strerror(errno))};
  }
  // mkstemp makes the file private (0600); a replaced file keeps its permissions, a new one
  // reads like any other output.
  struct stat before {};
  const mode_t mode = ::stat(path.c_str(), &before) == 0 && S_ISREG(before.st_mode)
                          ? (before.st_mode & 07777)
                          : 0644;
  int error = ::fchmod(fd, mode) != 0 ? errno : 0;
  if (error == 0) error = WriteAll(fd, contents);
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) {
    error = errno;
    ::unlink(temporary.c_str());
    return WriteFailure{fmt::format("{}: cannot replace the file: {}", name, std::strerror(error))};
  }
  if (error != 0) {
    ::unlink(temporary.c_str());
    return WriteFailure{fmt::format("{}: cannot write the file: {}", name, std::strerror(error))};
  }
  return std::nullopt;
}

}  // namespace

std::optional<WriteFailure> CheckOutputFile(const std::string& path) {
  if (path.empty()) return WriteFailure{"the output path is an empty string", 2};
  auto target = Resolve(path);
  if (auto* failure = std::get_if<WriteFailure>(&target)) return *failure;
  return std::nullopt;
}

std::optional<WriteFailure> WriteOutputFile(const std::string& path, std::string_view contents) {
  if (path.empty()) return WriteFailure{"the output path is an empty string", 2};
  auto resolved = Resolve(path);
  if (auto* failure = std::get_if<WriteFailure>(&resolved)) return *failure;
  const Target& target = std::get<Target>(resolved);
  const std::string name = Named(path, target.path);
  switch (target.way) {
    case Way::kDescriptor:
      return WriteDescriptor(name, target.fd, contents);
    case Way::kWriteThrough:
      return WriteThrough(name, target.path, contents);
    case Way::kReplace:
      break;
  }
  return Replace(name, target.path, contents);
}

}  // namespace hfsim
