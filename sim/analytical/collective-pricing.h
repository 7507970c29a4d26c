// Closed-form price of one (possibly multi-dimensional) collective on the fabric.
//
// The collective is split into per-dimension stages (models/multi-dim-collective.h) and into C
// pipelined chunks (communication.chunks). Stage s on dimension d(s) takes t_s for one chunk
// (models/schedule-profile.h with a buffer of fraction_s * S / C). Chunks flow through the stages
// as a pipeline in which each dimension is one resource shared by all stages placed on it, so
//
//   time = sum_s t_s  +  (C - 1) * max_d W_d,      W_d = sum of t_s over stages on d
//
// the first chunk's trip through every stage (fill and drain) plus the remaining chunks paced by
// the busiest dimension. With C = 1 this is the plain sum of stage times; as C grows (and
// latency is small) it tends to max_d W_d, which is max_d(traffic_d / B_d) -- the bound LIBRA
// optimises -- whenever each dimension's algorithm keeps all of the NPU's links busy (ring on a
// FullyConnected dimension, for one, does not).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/multi-dim-collective.h"
#include "sim/scenario.h"
#include "topologies/topology.h"

namespace hfsim {

struct CollectivePrice {
  double time_ns = 0.0;
  /// Per topology dimension: time it is busy with this collective (ns) and bytes one NPU sends.
  std::vector<double> dimension_busy_ns;
  std::vector<double> dimension_traffic_bytes;
};

class CollectivePricer {
 public:
  /// `aggregation`: the switch spec that prices "in_network" stages (models/in-network-allreduce.h);
  /// the loader guarantees it is present whenever an algorithm is "in_network".
  CollectivePricer(const std::vector<Dimension>& dimensions, const CommunicationSpec& communication,
                   const std::optional<AggregationSwitchSpec>& aggregation = std::nullopt);

  CollectivePrice Price(CollectiveKind kind, uint64_t size_bytes,
                        const std::vector<uint32_t>& dimensions) const;

 private:
  Topology m_topology;
  CommunicationSpec m_communication;
  std::optional<AggregationSwitchSpec> m_aggregation;
};

}  // namespace hfsim
