// Writing one output file where the user said (`run --trace FILE`, `convert -o FILE`) without
// ever destroying what the path points at. Replacing a file by writing a temporary one beside
// it and renaming it over the path keeps a failed write from leaving half a file, but renamed
// over /dev/null it made the machine's /dev/null a regular file, and over a FIFO, a link to
// /proc/self/fd/1 or the scenario itself it lost them. So what the path is decides
// (docs/bad-input.md, "Output paths"):
//
//   absent or a regular file   written beside it, then renamed over it (all or nothing)
//   a symbolic link            followed, as the shell's `>` does: what it points at is written
//                              by these rules and the link stays a link
//   a character device, FIFO   written through, in place (/dev/null stays /dev/null; /dev/full
//                              fails with ENOSPC, exit 1; a FIFO waits for its reader)
//   /dev/stdout, /dev/fd/N,    written to this process's descriptor N, at its offset (output
//   /proc/self/fd/N            redirected to a file lands in that file, not over it)
//   a directory, block device  refused, exit 2
//   or socket
//   a file this command read   refused, exit 2 (InputRole: the scenario, graph, groups, rank
//                              and ASTRA-sim/LIBRA files)
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hfsim {

/// Why an output could not be written: the message names the path; the exit code is 2 when
/// the path was refused for what it is (a directory, block device, socket, or an input of the
/// command), 1 when the machine failed the write (a full disk, permissions).
struct WriteFailure {
  std::string message;
  int exit_code = 1;
};

/// The checks WriteOutputFile makes before it writes, without writing: for a command to refuse
/// a path before its work rather than after it.
std::optional<WriteFailure> CheckOutputFile(const std::string& path);

/// Writes `contents` to `path` by the rules above; on failure `path` and what it points at are
/// as they were (a device or FIFO may have taken part of the bytes).
std::optional<WriteFailure> WriteOutputFile(const std::string& path, std::string_view contents);

}  // namespace hfsim
