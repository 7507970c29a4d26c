// Every file a command reads (scenario, graph, groups, Chakra rank files, ASTRA-sim and LIBRA
// inputs) is opened here, one way: without ever waiting (a FIFO nobody writes to used to block
// `hfsim run` forever), refusing what is not a regular file with a line that says what it is,
// and remembering each file read, so that no output of the same command can replace it
// (`--trace` naming the scenario file used to overwrite it). docs/bad-input.md, "Paths".
//
// Standard input and this process's own descriptors (/dev/stdin, /dev/fd/N, /proc/self/fd/N:
// a shell's `<(command)` or `< file`) are read whatever they are, a pipe or a terminal
// included: they are already open, so reading them cannot wait for a writer that never comes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/expected.h"

namespace hfsim {

/// True for /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N,
/// /proc/thread-self/fd/N and /proc/<this process>/fd/N: a path that names one of this
/// process's open descriptors rather than a file. Sets `fd` to N.
bool NamesOwnDescriptor(const std::string& path, int& fd);

/// Why `path` cannot be read as an input because of what it is ("is a named pipe (FIFO) ..."),
/// or nullopt when it is a regular file, one of this process's descriptors, or does not exist
/// (opening it says why). For the command line's first look; InputFile::Open decides.
std::optional<std::string> InputKindRefusal(const std::string& path);

/// One input file, open for reading.
class InputFile {
 public:
  /// Opens `path` (`what` names its role in errors: "the scenario file") without waiting,
  /// refuses a directory, FIFO, socket or device (exit 2 for the caller) unless the path names
  /// one of this process's descriptors, and records a regular file as an input of this process.
  static Expected<InputFile> Open(const std::string& path, std::string_view what);

  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  /// Its size when it is a regular file; nullopt for a pipe or a terminal.
  std::optional<uint64_t> Size() const { return m_size; }
  /// Appends up to `count` bytes to `out`: the number appended (0 at the end of the file).
  Expected<uint64_t> Read(std::string& out, uint64_t count);

 private:
  InputFile(int fd, std::string path, std::string what, std::optional<uint64_t> size)
      : m_fd(fd), m_path(std::move(path)), m_what(std::move(what)), m_size(size) {}
  int m_fd = -1;
  std::string m_path;
  std::string m_what;
  std::optional<uint64_t> m_size;
};

/// The whole of the input `path` (InputFile::Open), refused when it holds more than
/// `max_bytes`: a regular file by its size before anything is read, a pipe after at most
/// `max_bytes` + 1 bytes.
Expected<std::string> ReadInputFile(const std::string& path, std::string_view what,
                                    uint64_t max_bytes);

/// What the file (device, inode) is to this process when it has read it as an input ("the
/// scenario file, configs/quickstart.json"), or nullopt: writers refuse to replace it.
std::optional<std::string> InputRole(dev_t device, ino_t inode);

}  // namespace hfsim
