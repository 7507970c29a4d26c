// Topologies shared by the fabric graph tests.
#pragma once

#include <vector>

#include "topologies/topology.h"

namespace hfsim::testing {

inline Dimension Ring(uint32_t size, double bandwidth_Bpns = 100.0, double latency_ns = 500.0) {
  return Dimension{DimensionKind::kRing, size, bandwidth_Bpns, latency_ns};
}
inline Dimension FullyConnected(uint32_t size, double bandwidth_Bpns = 70.0,
                                double latency_ns = 700.0) {
  return Dimension{DimensionKind::kFullyConnected, size, bandwidth_Bpns, latency_ns};
}
inline Dimension Switch(uint32_t size, double bandwidth_Bpns = 25.0, double latency_ns = 1000.0) {
  return Dimension{DimensionKind::kSwitch, size, bandwidth_Bpns, latency_ns};
}

/// The 4-D fabric of the brief: 4 * 8 * 4 * 32 = 4096 NPUs.
inline Topology FourDimensional() {
  return Topology({Ring(4), FullyConnected(8), Ring(4), Switch(32)});
}

/// A mix of shapes small enough for exhaustive checks, plus the 4-D fabric.
inline std::vector<Topology> VariedTopologies() {
  return {
      Topology({Ring(2)}),
      Topology({Ring(3)}),
      Topology({Ring(8)}),
      Topology({FullyConnected(5)}),
      Topology({Switch(6)}),
      Topology({Ring(4), Switch(3)}),
      Topology({Ring(2), FullyConnected(3), Switch(4)}),
      Topology({Ring(5), Switch(3), FullyConnected(4)}),
      Topology({Switch(4), Switch(5)}),
      Topology({Ring(2), Ring(7), Ring(2), Ring(3)}),
      FourDimensional(),
  };
}

}  // namespace hfsim::testing
