// What a packet-engine run will need in memory, estimated from the scenario before anything is
// built, so a run that cannot fit is refused at once (exit 2) rather than ending in bad_alloc
// after minutes (2^20 NPUs took 8 GB and 128 s to fail). The estimate is a documented function
// (docs/packet-engine.md, "Memory"), calibrated on measured runs and meant to err high:
//
//   bytes = 32 MiB + per_vertex * (NPUs + switches) + per_link * directed links
//           + per_message * messages
//
// per_vertex and per_link cover ns-3's nodes, devices, queues and channels (a TCP transport
// adds ns-3's internet stack per node); messages are every point-to-point message of every
// collective of the run (each keeps its timing record and its receiver's duplicate guard until
// the run ends). Parameter-server, in-network and gossip runs have their own bounded drivers:
// their estimate is the fabric's.
#pragma once

#include <cstdint>
#include <optional>

#include "base/expected.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

struct PacketMemoryEstimate {
  double fabric_bytes = 0.0;
  uint64_t messages = 0;
  double message_bytes = 0.0;
  double TotalBytes() const;
};

PacketMemoryEstimate EstimatePacketMemory(const Scenario& scenario);

/// Refuses (at "packet.max_memory_GiB", or "engine" when that key is absent) a packet run
/// whose estimate exceeds scenario.packet.max_memory_GiB.
std::optional<UserError> PacketMemoryRefusal(const Scenario& scenario);

}  // namespace hfsim
