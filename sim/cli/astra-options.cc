#include "sim/cli/astra-options.h"

#include <fmt/format.h>

#include "sim/cli/option-checks.h"
#include "sim/import/astra-import.h"

namespace hfsim {

void AstraOptions::Register(CLI::App& command) {
  command.add_option("--astra-network", network,
                     "ASTRA-sim analytical network YAML (topology, npus_count, bandwidth, latency)")
      ->check(ReadableFile());
  command.add_option("--astra-system", system,
                     "ASTRA-sim system JSON (scheduling, chunks, implementations, local-mem-bw)")
      ->check(ReadableFile());
  command.add_option("--collective", collective,
                     "With the ASTRA-sim inputs: one collective over every dimension")
      ->check(CLI::IsMember({"all_reduce", "reduce_scatter", "all_gather", "all_to_all"}));
  command.add_option("--size", size,
                     "Size of --collective: bytes, or with a unit (KiB, MiB, GiB, TiB, KB, MB, GB, "
                     "TB), e.g. 64MiB; the full per-NPU buffer (docs/scenario.md §5.1)");
}

bool AstraOptions::Given() const {
  return !network.empty() || !system.empty() || !collective.empty() || !size.empty();
}

Expected<nlohmann::json> AstraOptions::Import(const std::string& command,
                                              const std::string& workload_path) const {
  const bool single = !collective.empty() || !size.empty();
  if (network.empty() || system.empty()) {
    if (single && network.empty() && system.empty()) {
      return UserError{command, "--collective and --size need --astra-network and --astra-system"};
    }
    return UserError{command, "--astra-network and --astra-system go together; give both"};
  }
  if (single == !workload_path.empty() || (single && (collective.empty() || size.empty()))) {
    return UserError{command, "with ASTRA-sim inputs give either a workload scenario file or "
                              "--collective KIND --size SIZE (both), not both and not neither"};
  }
  return ImportAstraSim(AstraInputs{network, system, workload_path, collective, size});
}

std::string AstraOptions::Source(const std::string& workload_path) const {
  if (workload_path.empty()) return fmt::format("{} + {}", network, system);
  return fmt::format("{} (with {} + {})", workload_path, network, system);
}

}  // namespace hfsim
