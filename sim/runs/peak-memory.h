// The process's peak resident memory, for the engines' printed run statistics (never written to
// files: it depends on the machine and on what else the process did).
#pragma once

#include <sys/resource.h>

#include <cstdint>

namespace hfsim {

inline uint64_t PeakResidentBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // KiB on Linux
}

}  // namespace hfsim
