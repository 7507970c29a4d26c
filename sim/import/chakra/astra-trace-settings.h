// What an ASTRA-sim system JSON says about running a Chakra trace beyond the collectives'
// pricing (which sim/import/astra-system.h reads): the roofline for compute nodes and the
// custom collective implementations (docs/chakra.md §2 and §6).
#pragma once

#include <string>

#include "base/expected.h"
#include "sim/import/chakra/chakra-import.h"

namespace hfsim {

struct AstraTraceSettings {
  ChakraRoofline roofline;
  /// By hfsim kind ("all_reduce", ...): the implementation's trace prefix, a path relative to
  /// the working directory as ASTRA-sim opens it.
  std::map<std::string, std::string> custom;
};

/// Reads "roofline-enabled", "peak-perf", "local-mem-bw" and "*-implementation-custom".
/// Errors name the file and the key.
Expected<AstraTraceSettings> ReadAstraTraceSettings(const std::string& system_path);

}  // namespace hfsim
