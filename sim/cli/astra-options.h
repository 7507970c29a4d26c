// The ASTRA-sim input options shared by `hfsim run` and `hfsim convert`: network YAML and system
// JSON, with either a workload scenario file or one collective (kind and size).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "base/expected.h"

namespace hfsim {

/// --astra-network, --astra-system, --collective, --size.
struct AstraOptions {
  std::string network;
  std::string system;
  std::string collective;
  std::string size;

  void Register(CLI::App& command);
  /// True when any ASTRA-sim option was given.
  bool Given() const;
  /// The imported scenario document. `workload_path` is the positional scenario file (empty when
  /// none); errors name the option or file. `command` names the subcommand in errors.
  /// With `chakra` the workload comes from a Chakra trace (--chakra) and neither may be given.
  Expected<nlohmann::json> Import(const std::string& command, const std::string& workload_path,
                                  bool chakra = false) const;
  /// How errors of the loader name these inputs, e.g. "net.yml + sys.json".
  std::string Source(const std::string& workload_path) const;
};

}  // namespace hfsim
