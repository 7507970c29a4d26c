#include "sim/scenario/input-file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include <fmt/format.h>

namespace hfsim {

namespace {

// Every regular file this process has read as an input, with its role: outputs must not
// replace them. Rank files are read on several threads, hence the lock.
struct InputRegistry {
  std::mutex mutex;
  std::map<std::pair<dev_t, ino_t>, std::string> roles;
};

InputRegistry& Registry() {
  static InputRegistry registry;
  return registry;
}

void RecordInput(const struct stat& info, std::string_view what, const std::string& path) {
  InputRegistry& registry = Registry();
  std::lock_guard lock(registry.mutex);
  registry.roles.try_emplace({info.st_dev, info.st_ino}, fmt::format("{}, {}", what, path));
}

// "is a named pipe (FIFO) ..." for what a stat says, or nullopt for a regular file.
std::optional<std::string> KindRefusal(mode_t mode) {
  constexpr const char* kAccepted =
      "accepted: a regular file, or standard input as /dev/stdin (a pipe or a file)";
  if (S_ISREG(mode)) return std::nullopt;
  if (S_ISDIR(mode)) return std::string("is a directory; accepted: a regular file");
  if (S_ISFIFO(mode)) {
    return fmt::format("is a named pipe (FIFO): reading it would wait for a writer, perhaps "
                       "forever; {}", kAccepted);
  }
  if (S_ISCHR(mode)) return fmt::format("is a character device; {}", kAccepted);
  if (S_ISBLK(mode)) return fmt::format("is a block device; {}", kAccepted);
  if (S_ISSOCK(mode)) return fmt::format("is a socket; {}", kAccepted);
  return fmt::format("is not a regular file; {}", kAccepted);
}

bool DigitsTo(std::string_view text, int& value) {
  if (text.empty() || text.size() > 9) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

bool NamesOwnDescriptor(const std::string& path, int& fd) {
  if (path == "/dev/stdin") return (fd = 0, true);
  if (path == "/dev/stdout") return (fd = 1, true);
  if (path == "/dev/stderr") return (fd = 2, true);
  const std::string own = fmt::format("/proc/{}/fd/", getpid());
  for (const std::string_view prefix :
       {std::string_view("/dev/fd/"), std::string_view("/proc/self/fd/"),
        std::string_view("/proc/thread-self/fd/"), std::string_view(own)}) {
    if (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0) {
      return DigitsTo(std::string_view(path).substr(prefix.size()), fd);
    }
  }
  return false;
}

std::optional<std::string> InputKindRefusal(const std::string& path) {
  int fd = -1;
  if (NamesOwnDescriptor(path, fd)) return std::nullopt;
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return KindRefusal(info.st_mode);
}

Expected<InputFile> InputFile::Open(const std::string& path, std::string_view what) {
  int own = -1;
  const bool descriptor = NamesOwnDescriptor(path, own);
  // O_NONBLOCK: opening a FIFO for reading waits for a writer; this never does. It is cleared
  // once the file is known to be something to read from.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    return UserError{path, fmt::format("cannot open {}: {}", what, std::strerror(errno))};
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    return UserError{path, fmt::format("cannot open {}: {}", what, std::strerror(error))};
  }
  const auto refusal = KindRefusal(info.st_mode);
  if (refusal && (!descriptor || S_ISDIR(info.st_mode) || S_ISBLK(info.st_mode))) {
    ::close(fd);
    return UserError{path, fmt::format("{} {}", what, *refusal)};
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::optional<uint64_t> size;
  if (S_ISREG(info.st_mode)) {
    size = static_cast<uint64_t>(info.st_size);
    RecordInput(info, what, path);
  }
  return InputFile(fd, path, std::string(what), size);
}

InputFile::InputFile(InputFile&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)),
      m_path(std::move(other.m_path)),
      m_what(std::move(other.m_what)),
      m_size(other.m_size) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = std::exchange(other.m_fd, -1);
    m_path = std::move(other.m_path);
    m_what = std::move(other.m_what);
    m_size = other.m_size;
  }
  return *this;
}

InputFile::~InputFile() {
  if (m_fd >= 0) ::close(m_fd);
}

Expected<uint64_t> InputFile::Read(std::string& out, uint64_t count) {
  const size_t start = out.size();
  out.resize(start + count);
  size_t got = 0;
  while (got < count) {
    const ssize_t n = ::read(m_fd, out.data() + start + got, count - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      out.resize(start + got);
      return UserError{m_path, fmt::format("cannot read {}: {}", m_what, std::strerror(error))};
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  out.resize(start + got);
  return static_cast<uint64_t>(got);
}

Expected<std::string> ReadInputFile(const std::string& path, std::string_view what,
                                    uint64_t max_bytes) {
  auto file = InputFile::Open(path, what);
  if (!file) return file.Error();
  auto too_large = [&] {
    return UserError{path, fmt::format("{} is larger than {} bytes; accepted: at most {}", what,
                                       max_bytes, max_bytes)};
  };
  const std::optional<uint64_t> size = file.Value().Size();
  if (size && *size > max_bytes) return too_large();
  std::string text;
  // A regular file is read to its size and one byte more (to see one that grew: then on, in
  // blocks); a pipe in blocks until its end or the limit.
  if (size) text.reserve(*size + 1);
  uint64_t block = size ? *size + 1 : uint64_t{1} << 16;
  while (true) {
    auto got = file.Value().Read(text, block);
    if (!got) return got.Error();
    if (text.size() > max_bytes) return too_large();
    if (got.Value() < block) break;  // Read stops short only at the end of the file
    block = uint64_t{1} << 16;
  }
  return text;
}

std::optional<std::string> InputRole(dev_t device, ino_t inode) {
  InputRegistry& registry = Registry();
  std::lock_guard lock(registry.mutex);
  const auto found = registry.roles.find({device, inode});
  if (found == registry.roles.end()) return std::nullopt;
  return found->second;
}

}  // namespace hfsim
