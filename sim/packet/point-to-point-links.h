// The one way a fabric's links are wired in ns-3, for the lean L2 fabric (packet-fabric.h), the
// IP fabric (ip-fabric.h) and the in-network all-reduce (ina-allreduce.h): a link and its
// reverse (same dimension, endpoints swapped) share one duplex point-to-point channel with the
// link's latency, and each direction is a device on its source node with the link's rate, an
// MTU of 65535 (nothing is ever fragmented: a segment is at most 65000 + 80 header bytes) and a
// drop-tail queue of `queue_bytes`. Devices are made in link order, a link's then its
// reverse's, so node and device numbering and MAC addresses are the same on every run.
#pragma once

#include <ns3/node.h>
#include <ns3/point-to-point-net-device.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "topologies/fabric-graph.h"

namespace hfsim {

struct PointToPointLinkOptions {
  uint32_t queue_bytes = 0;
  /// The links to wire (all when empty); a wired link's reverse must be wired too.
  std::function<bool(const FabricLink&)> wired;
  /// A link without a reverse link is an error (std::logic_error) instead of a channel of its
  /// own.
  bool require_reverse = false;
};

/// The link sharing a link's channel (its reverse), by link id; kNoPeerLink for a link without
/// one or not wired.
inline constexpr LinkId kNoPeerLink = ~LinkId{0};

/// Wires `graph`'s links. `nodes` (by vertex, sized to the graph's nodes) gets a new node where
/// it holds none when a device needs one; `devices` (by link id, sized to its links) gets each
/// wired link's device. `finish(id, device)` runs on each device once it sits on its node and
/// channel, before the next device is made: receive callbacks, traces, IP interfaces. Returns
/// each link's peer on its channel.
std::vector<LinkId> BuildPointToPointLinks(
    const FabricGraph& graph, const PointToPointLinkOptions& options,
    std::vector<ns3::Ptr<ns3::Node>>& nodes,
    std::vector<ns3::Ptr<ns3::PointToPointNetDevice>>& devices,
    const std::function<void(LinkId, const ns3::Ptr<ns3::PointToPointNetDevice>&)>& finish);

}  // namespace hfsim
