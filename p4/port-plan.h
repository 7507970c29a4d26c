// Which Tofino device port each endpoint of the aggregation protocol sits behind. The generated
// P4 program never names a port: forwarding, multicast groups and the recirculation port are all
// control-plane entries built from this plan, and the test vectors say on which port each input
// packet enters and each expected packet leaves. So re-cabling a testbed means editing the
// control plane (the bfrt script's PORTS table, or control-plane.json), not the program.
//
// Default plan (Tofino pipe 0, one device port per host): worker w on dev port w, server shard s on
// dev port 32 + s. The Tofino-1 harvest pass recirculates through pipe 0's recirculation port 68;
// Tofino-2 needs no harvest pass.
#pragma once

#include <cstdint>

#include "models/aggregation/aggregation-packet.h"
#include "models/aggregation/aggregation-spec.h"

namespace hfsim {

inline constexpr uint32_t kMaxP4Workers = 32;
inline constexpr uint32_t kMaxP4ServerShards = 32;
inline constexpr uint16_t kFirstServerDevPort = 32;
inline constexpr uint16_t kTofino1RecirculationPort = 68;

struct PortPlan {
  static uint16_t WorkerPort(uint32_t worker) { return static_cast<uint16_t>(worker); }
  static uint16_t ServerPort(uint32_t shard) {
    return static_cast<uint16_t>(kFirstServerDevPort + shard);
  }
  /// The port behind `endpoint`; the switch itself has none (0 is returned, never used).
  static uint16_t PortOf(const Endpoint& endpoint) {
    switch (endpoint.kind) {
      case EndpointKind::kWorker:
        return WorkerPort(endpoint.index);
      case EndpointKind::kServer:
        return ServerPort(endpoint.index);
      case EndpointKind::kSwitch:
        break;
    }
    return 0;
  }
};

}  // namespace hfsim
