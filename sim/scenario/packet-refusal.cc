#include "sim/scenario/packet-refusal.h"

#include "sim/scenario/gossip-section.h"
#include "sim/scenario/in-network-check.h"
#include "sim/scenario/packet-memory.h"

namespace hfsim {

std::optional<UserError> GraphPacketRefusal(const Scenario& scenario) {
  if (scenario.workload_kind == WorkloadKind::kTraining &&
      !scenario.training.tensor_per_dimension.empty()) {
    return UserError{"workload.training.parallelism.tensor_per_dimension",
                     "the packet engine runs parallel groups of whole dimensions only, for now; "
                     "accepted: engine \"analytical\" (docs/graph.md)"};
  }
  if (scenario.workload_kind != WorkloadKind::kGraph) return std::nullopt;
  return UserError{"workload.graph", "the packet engine does not run execution graphs given in "
                   "the scenario yet; accepted: engine \"analytical\" (docs/graph.md)"};
}

std::optional<UserError> PacketRunRefusal(const Scenario& scenario) {
  if (auto refusal = GraphPacketRefusal(scenario)) return refusal;
  if (auto refusal = InNetworkPacketRefusal(scenario)) return refusal;
  if (auto refusal = GossipPacketRefusal(scenario)) return refusal;
  return PacketMemoryRefusal(scenario);
}

}  // namespace hfsim
