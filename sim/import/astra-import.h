// ASTRA-sim inputs -> an hfsim scenario document. The importer only converts (units, names,
// keys); the normal loader (ParseScenario) then validates the document like any scenario, so a
// future `hfsim convert` can write the same document out. docs/astra-sim.md has the mapping.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.h"
#include "base/expected.h"

namespace hfsim {

struct AstraInputs {
  std::string network_path;  ///< ASTRA-sim analytical network YAML
  std::string system_path;   ///< ASTRA-sim system JSON
  /// Either an hfsim scenario file giving the workload (no "topology" or "communication") ...
  std::string workload_path;
  /// ... or one collective over every dimension: kind and size (e.g. "64MiB").
  std::string collective;
  std::string size;
  /// The workload will be a Chakra trace: the system file may name custom implementations.
  bool chakra = false;
};

/// The scenario document; errors name the file (or option) and the key.
Expected<nlohmann::json> ImportAstraSim(const AstraInputs& inputs);

/// A collective the loaded scenario runs natively whose kind the system file at `system_path`
/// gives no "*-implementation" list: ASTRA-sim has no default for one and stops on it ("No
/// collective implementation found", CollectiveImplLookup::get_collective_impl). Named at the
/// system file's key; nullopt when every collective run has its list.
std::optional<UserError> AstraImplementationRefusal(const Scenario& scenario,
                                                    const std::string& system_path);

/// "1048576", "64MiB", "1.5GiB", "100MB", "4KiB", "512B" -> bytes (1 to 2^50, whole bytes).
Expected<uint64_t> ParseByteSize(const std::string& text);

}  // namespace hfsim
