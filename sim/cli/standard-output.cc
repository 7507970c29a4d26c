#include "sim/cli/standard-output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace hfsim {

int FinishStandardOutput(int code) {
  std::cout.flush();
  errno = 0;
  const bool lost = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (!lost) return code;
  const int saved = errno;
  std::cerr << "hfsim: error: cannot write to standard output"
            << (saved != 0 ? std::string(": ") + std::strerror(saved) : std::string()) << "\n";
  return code == 0 ? 1 : code;
}

}  // namespace hfsim
