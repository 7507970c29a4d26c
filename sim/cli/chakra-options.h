// The Chakra trace options shared by `hfsim run` and `hfsim convert`: --chakra PREFIX (one
// PREFIX.RANK.et per NPU), --chakra-groups FILE (ASTRA-sim's communicator groups) and
// --chakra-legacy. The trace becomes the scenario's workload.graph (docs/chakra.md).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/expected.h"

namespace hfsim {

struct ChakraOptions {
  std::string prefix;
  std::string groups_path;
  bool legacy = false;
  bool replicate = false;

  void Register(CLI::App& command);
  bool Given() const { return !prefix.empty(); }
  /// Options given without --chakra, as an error naming them; nullopt when they are fine.
  std::optional<UserError> CheckAlone(const std::string& command) const;
  /// Replaces `document`'s workload with the trace read for the fabric its topology describes;
  /// `astra_system` (empty without ASTRA-sim inputs) gives ASTRA-sim's roofline settings and
  /// custom implementations, and then the trace names the scenario. Prints the trace's node
  /// counts to standard error. Errors name the file, the node and the problem.
  std::optional<UserError> Apply(nlohmann::json& document, const std::string& astra_system) const;
};

}  // namespace hfsim
