// The closed-form price of a set of point-to-point messages sent at the same time (one
// "phase"): every message follows its dimension-order route, messages sharing a link share its
// bandwidth fairly, so the phase lasts as long as the busiest link needs for all the bytes routed
// over it, plus the longest route latency. The parameter-server pricing (push and pull phases) and
// the gossip pricing (one phase of exchanges per step) both use it.
#pragma once

#include <span>

#include "topologies/fabric-graph.h"

namespace hfsim {

// Named apart from models/schedule.h's Transfer (a schedule's block transfer): two different
// structs of one name in one namespace break the one-definition rule, and the linker then keeps
// one copy of each inline function of std::vector<Transfer> for both layouts (a heap overflow
// under clang's AddressSanitizer in every collective the executor ran).
struct PhaseTransfer {
  VertexId source = 0;
  VertexId destination = 0;
  double bytes = 0.0;
};

/// Messages from an NPU to itself cost nothing; an empty phase costs 0.
double ConcurrentTransfersNs(const FabricGraph& graph, std::span<const PhaseTransfer> transfers);

}  // namespace hfsim
