// Messages as fluid flows on the fabric graph's links. A message from one NPU to another drains
// over its route (FabricGraph's dimension-order route) at a rate that max-min fairness gives it
// among every flow draining at the same time; rates are re-solved whenever a flow starts or
// finishes draining. Its last byte arrives the route's latency (each hop's, added once) after
// it has drained. There is no loss and no queue: what a flow-level model cannot see is written
// down in docs/flow.md.
//
// The caller drives time: it starts flows at the current time, asks when the next event is (a
// flow finishing draining, which changes the others' rates, or a message arriving), and
// advances to it, or to an earlier time of its own to start more flows.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "topologies/fabric-graph.h"

namespace hfsim {

class FlowNetwork {
 public:
  using FlowId = uint32_t;

  explicit FlowNetwork(const FabricGraph& fabric);

  /// Starts a message of `bytes` from NPU `src` to NPU `dst` now (the time of the last
  /// AdvanceTo, 0 at first). A message to itself, or of 0 bytes, only waits for the latency.
  FlowId Start(uint32_t src, uint32_t dst, uint64_t bytes);

  /// When the next flow finishes draining or the next message arrives (infinity when nothing is
  /// under way).
  double NextEvent() const;
  double Now() const { return m_now; }

  /// Moves time to `until` (at least Now(), at most NextEvent()) and returns the messages that
  /// have arrived by then, in the order they were started.
  std::vector<FlowId> AdvanceTo(double until);

  /// Per link (LinkId), bytes carried so far and the most flows it carried at once.
  const std::vector<double>& LinkBytes() const { return m_link_bytes; }
  const std::vector<uint32_t>& LinkPeakFlows() const { return m_link_peak; }

 private:
  struct Flow {
    FlowId id;
    std::vector<LinkId> route;
    double remaining;   // bytes not yet drained
    double rate = 0.0;  // bytes per ns
    double latency;     // ns, added once the last byte has drained
  };
  struct InFlight {
    FlowId id;
    double arrival;
  };
  void Solve();

  const FabricGraph* m_fabric;
  double m_now = 0.0;
  FlowId m_next_id = 0;
  std::vector<Flow> m_draining;
  std::vector<InFlight> m_in_flight;  // drained, their last byte on its way
  std::vector<double> m_link_bytes;
  std::vector<uint32_t> m_link_peak;
  std::vector<uint32_t> m_link_flows;  // flows draining through each link now
};

}  // namespace hfsim
