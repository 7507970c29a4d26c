// What the engines that count bytes on every link (flow, packet) report alike: each link's row
// starts with which link it is, where it runs, its bytes and its utilisation (LinkRow), and each
// dimension's measured busy time is its busiest link's (TakeBusiestLinks).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/report/report.h"
#include "topologies/fabric-graph.h"

namespace hfsim {

/// A LinkReport or FlowLinkReport with its common columns filled: link id, endpoints,
/// dimension, `bytes` and bytes / (link bandwidth x `simulated_ns`) (0 for an empty run).
template <typename Row>
Row LinkRow(const FabricGraph& graph, LinkId id, uint64_t bytes, double simulated_ns) {
  const FabricLink& link = graph.Link(id);
  Row row;
  row.link = id;
  row.source = link.source;
  row.target = link.target;
  row.dimension = link.dimension;
  row.bytes = bytes;
  row.utilisation = simulated_ns > 0.0
                        ? static_cast<double>(bytes) / (link.bandwidth_Bpns * simulated_ns)
                        : 0.0;
  return row;
}

/// Each dimension's busy time as measured on its links: raised to the largest `busy_ns(row)`
/// over the rows of its links (rows with a `dimension`).
template <typename Rows, typename BusyNs>
void TakeBusiestLinks(const Rows& rows, BusyNs busy_ns, std::vector<DimensionReport>& dimensions) {
  for (const auto& row : rows) {
    DimensionReport& dimension = dimensions[row.dimension];
    dimension.busy_ns = std::max(dimension.busy_ns, busy_ns(row));
  }
}

}  // namespace hfsim
