// The last step of every command: standard output is flushed and checked, so a report piped to
// a full disk (`hfsim convert … > file`) fails with exit 1 instead of a truncated file and 0.
#pragma once

namespace hfsim {

/// Flushes std::cout and stdout; returns `code`, or 1 with a message on stderr when anything
/// written to standard output was lost.
int FinishStandardOutput(int code);

}  // namespace hfsim
