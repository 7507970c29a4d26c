// libFuzzer target: WriteOutputFile (sim/cli/output-path.h), the writer of every single-file
// output (`run --trace FILE`, `convert -o FILE`), against every kind of path. The first byte
// picks what the path is (absent, a regular file, a directory, a FIFO with a reader, a private
// character device like /dev/null or /dev/full, a file this process read as an input, a
// symbolic link to each of these, to a pipe through /proc/self/fd, or in a loop), the rest is
// what is written. Beyond "no crash", each kind's rule is checked: a regular or absent file
// holds exactly the bytes; a link stays a link and what it points at is written; a device stays
// a device and a FIFO a FIFO (its reader gets the bytes); a directory, a loop and an input are
// refused with exit 2 and left as they were; no temporary file is ever left behind.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/cli/output-path.h"
#include "sim/scenario/input-file.h"

namespace {

namespace fs = std::filesystem;

const fs::path& Directory() {
  static const fs::path dir = [] {
    auto path = fs::temp_directory_path() / ("hfsim-fuzz-output-path-" + std::to_string(::getpid()));
    fs::create_directories(path);
    return path;
  }();
  return dir;
}

// A file this process has read as an input, made and read once.
const fs::path& Input(const std::string& bytes) {
  static const fs::path input = [&] {
    const fs::path path = Directory() / "input";
    std::ofstream(path, std::ios::binary) << bytes;
    if (!hfsim::InputFile::Open(path.string(), "the input")) std::abort();
    return path;
  }();
  return input;
}

std::string Read(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

void Check(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "output-path invariant broken: %s\n", what);
  std::abort();
}

bool IsKind(const fs::path& path, mode_t kind) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0 && (info.st_mode & S_IFMT) == kind;
}

enum Kind : uint8_t {
  kAbsent,
  kRegular,
  kDirectory,
  kFifo,
  kNullDevice,
  kFullDevice,
  kInput,
  kLinkToRegular,
  kLinkToAbsent,
  kLinkToDirectory,
  kLinkToNullDevice,
  kLinkToPipe,
  kLinkLoop,
  kKinds
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto kind = static_cast<Kind>(data[0] % kKinds);
  // A FIFO's or pipe's buffer holds 64 KiB: what is written stays below it.
  const std::string contents(reinterpret_cast<const char*>(data) + 1, std::min<size_t>(size - 1, 32768));
  const fs::path dir = Directory() / "case";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path path = dir / "out";
  const fs::path target = dir / "target";
  const std::string earlier = "earlier bytes\n";
  int reader = -1;
  int pipe_ends[2] = {-1, -1};
  auto device = [&](const fs::path& at, unsigned minor) {
    return ::mknod(at.c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0;
  };
  switch (kind) {
    case kAbsent:
    case kKinds:
      break;
    case kRegular:
      std::ofstream(path, std::ios::binary) << earlier;
      break;
    case kInput:
      // A link to one input read once: inodes freed between cases are reused, and one that had
      // been an input would make a later case's fresh file look like one.
      fs::create_hard_link(Input(earlier), path);
      break;
    case kDirectory:
      fs::create_directories(path);
      break;
    case kFifo:
      ::mkfifo(path.c_str(), 0600);
      reader = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
      break;
    case kNullDevice:
    case kFullDevice:
      // A private node like /dev/null (1, 3) or /dev/full (1, 7): the machine's own are never
      // put at risk. Without the right to make one (not root), the case is skipped.
      if (!device(path, kind == kNullDevice ? 3 : 7)) return 0;
      break;
    case kLinkToRegular:
      std::ofstream(target, std::ios::binary) << earlier;
      fs::create_symlink("target", path);
      break;
    case kLinkToAbsent:
      fs::create_symlink("target", path);
      break;
    case kLinkToDirectory:
      fs::create_directories(target);
      fs::create_symlink(target, path);
      break;
    case kLinkToNullDevice:
      if (!device(target, 3)) return 0;
      fs::create_symlink(target, path);
      break;
    case kLinkToPipe:
      if (::pipe2(pipe_ends, O_NONBLOCK | O_CLOEXEC) != 0) return 0;
      fs::create_symlink("/proc/self/fd/" + std::to_string(pipe_ends[1]), path);
      break;
    case kLinkLoop:
      fs::create_symlink("target", path);
      fs::create_symlink("out", target);
      break;
  }
  const auto failure = hfsim::WriteOutputFile(path.string(), contents);
  switch (kind) {
    case kAbsent:
    case kRegular:
    case kKinds:
      Check(!failure && IsKind(path, S_IFREG) && Read(path) == contents, "a file holds the bytes");
      break;
    case kInput:
      Check(failure && failure->exit_code == 2 && Read(path) == earlier, "an input is refused");
      break;
    case kDirectory:
      Check(failure && failure->exit_code == 2 && IsKind(path, S_IFDIR), "a directory is refused");
      break;
    case kFifo: {
      Check(!failure && IsKind(path, S_IFIFO), "a FIFO stays a FIFO");
      std::string got(contents.size() + 1, '\0');
      const ssize_t n = ::read(reader, got.data(), got.size());
      Check(contents.empty() ? n <= 0 : n == static_cast<ssize_t>(contents.size()) &&
                                            got.compare(0, n, contents) == 0,
            "the FIFO's reader gets the bytes");
      ::close(reader);
      break;
    }
    case kNullDevice:
      Check(!failure && IsKind(path, S_IFCHR), "a device stays a device");
      break;
    case kFullDevice:
      Check(IsKind(path, S_IFCHR), "a full device stays a device");
      Check(contents.empty() ? !failure : failure && failure->exit_code == 1, "a full device fails");
      break;
    case kLinkToRegular:
    case kLinkToAbsent:
      Check(!failure && IsKind(path, S_IFLNK) && IsKind(target, S_IFREG) && Read(target) == contents,
            "a link stays a link and its target holds the bytes");
      break;
    case kLinkToDirectory:
      Check(failure && failure->exit_code == 2 && IsKind(path, S_IFLNK) && IsKind(target, S_IFDIR),
            "a link to a directory is refused");
      break;
    case kLinkToNullDevice:
      Check(!failure && IsKind(path, S_IFLNK) && IsKind(target, S_IFCHR), "a linked device stays");
      break;
    case kLinkToPipe: {
      Check(!failure && IsKind(path, S_IFLNK), "a link to a descriptor stays a link");
      std::string got(contents.size() + 1, '\0');
      const ssize_t n = ::read(pipe_ends[0], got.data(), got.size());
      Check(contents.empty() ? n <= 0 : n == static_cast<ssize_t>(contents.size()) &&
                                            got.compare(0, n, contents) == 0,
            "the pipe gets the bytes");
      ::close(pipe_ends[0]);
      ::close(pipe_ends[1]);
      break;
    }
    case kLinkLoop:
      Check(failure && failure->exit_code == 2 && IsKind(path, S_IFLNK), "a loop is refused");
      break;
  }
  // Nothing but what the case made: no temporary file left beside the path.
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    Check(name == "out" || name == "target", "no temporary file is left behind");
  }
  return 0;
}
