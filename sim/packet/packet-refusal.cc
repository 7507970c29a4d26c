#include "sim/packet/packet-refusal.h"

#include "sim/packet/packet-memory.h"
#include "sim/packet/packet-message-size.h"
#include "sim/scenario/gossip-section.h"
#include "sim/scenario/in-network-check.h"

namespace hfsim {

std::optional<UserError> PacketRunRefusal(const Scenario& scenario) {
  if (auto refusal = InNetworkPacketRefusal(scenario)) return refusal;
  if (auto refusal = GossipPacketRefusal(scenario)) return refusal;
  if (auto refusal = PacketMemoryRefusal(scenario)) return refusal;
  return PacketMessageSizeRefusal(scenario);
}

}  // namespace hfsim
