#include "sim/packet-refusal.h"

#include "sim/gossip-section.h"
#include "sim/in-network-check.h"
#include "sim/packet-memory.h"

namespace hfsim {

std::optional<UserError> PacketRunRefusal(const Scenario& scenario) {
  if (auto refusal = InNetworkPacketRefusal(scenario)) return refusal;
  if (auto refusal = GossipPacketRefusal(scenario)) return refusal;
  return PacketMemoryRefusal(scenario);
}

}  // namespace hfsim
