#include "sim/cli/astra-options.h"

#include <fmt/format.h>

#include "sim/cli/option-checks.h"
#include "sim/import/astra-import.h"

namespace hfsim {

bool AstraOptions::Given() const {
  return !network.empty() || !system.empty() || !collective.empty() || !size.empty();
}

Expected<nlohmann::json> AstraOptions::Import(const std::string& command,
                                              const std::string& workload_path, bool chakra) const {
  const bool single = !collective.empty() || !size.empty();
  if (network.empty() || system.empty()) {
    if (single && network.empty() && system.empty()) {
      return UserError{command, "--collective and --size need --astra-network and --astra-system"};
    }
    return UserError{command, "--astra-network and --astra-system go together; give both"};
  }
  if (chakra) {
    if (single || !workload_path.empty()) {
      return UserError{command,
                       "with --chakra the trace is the workload: give no workload "
                       "scenario file and no --collective or --size"};
    }
    // A placeholder workload for the import; the trace replaces it.
    return ImportAstraSim(AstraInputs{network, system, "", "all_reduce", "1", true});
  }
  if (single == !workload_path.empty() || (single && (collective.empty() || size.empty()))) {
    return UserError{command,
                     "with ASTRA-sim inputs give either a workload scenario file or "
                     "--collective KIND --size SIZE (both), not both and not neither"};
  }
  return ImportAstraSim(AstraInputs{network, system, workload_path, collective, size});
}

std::string AstraOptions::Source(const std::string& workload_path) const {
  if (workload_path.empty()) return fmt::format("{} + {}", network, system);
  return fmt::format("{} (with {} + {})", workload_path, network, system);
}

}  // namespace hfsim
