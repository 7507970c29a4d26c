// The fabric for ns-3's own TCP: the same nodes and point-to-point links as PacketFabric (same
// rates, latencies and drop-tail queues, one device per directed link), but every node runs
// ns-3's IPv4 stack and forwards as an IP router along hfsim's dimension-order routes.
//
// Addresses follow IpAddressPlan (each NPU's coordinates as bit fields of 10.0.0.0/8), so the
// routes are static and few: an NPU holds one masked route per (dimension, other coordinate), a
// switch one per member of its group, each pointing at the link FabricGraph's route takes first.
// No global routing (ns-3's Ipv4GlobalRoutingHelper is too slow and large at scale) and no queue
// disc: interfaces are added by hand instead of by Ipv4AddressHelper::Assign, which would
// silently put a traffic-control queue in front of every device.
//
// Faults: random loss and link-down intervals drop packets as they arrive at the link's far end
// (a receive error model), after they used the link, so a lost packet counts in the link's
// packets and bytes as well as in drops_injected; PacketFabric drops them before sending. The
// other per-link counters mean what they mean for PacketFabric; ECN marks stay 0 (no queue
// marks them).
#pragma once

#include <cstdint>
#include <vector>

#include <ns3/ipv4-address.h>
#include <ns3/node.h>
#include <ns3/packet.h>
#include <ns3/point-to-point-net-device.h>

#include "sim/packet/link-faults.h"
#include "sim/packet/packet-fabric.h"  // LinkCounters
#include "sim/scenario/scenario.h"
#include "topologies/fabric-graph.h"
#include "topologies/ip-address-plan.h"

namespace hfsim {

class IpFabric {
 public:
  /// Throws std::invalid_argument when the topology does not fit IpAddressPlan or IP's TTL (the
  /// scenario loader refuses such fabrics first).
  IpFabric(const FabricGraph& graph, const PacketSpec& spec, uint64_t seed);
  IpFabric(const IpFabric&) = delete;
  IpFabric& operator=(const IpFabric&) = delete;

  ns3::Ptr<ns3::Node> NpuNode(uint32_t npu) const { return m_nodes[npu]; }
  ns3::Ipv4Address NpuAddress(uint32_t npu) const;
  /// The NPU that owns `address` (an NpuAddress).
  uint32_t NpuOf(ns3::Ipv4Address address) const;

  const std::vector<LinkCounters>& Counters() const { return m_counters; }
  const FabricGraph& Graph() const { return m_graph; }

  /// Whether a packet arriving now over `link` is lost (random loss or the link being down);
  /// counts it. Called by the link's receive error model.
  bool LoseOnArrival(LinkId link);

 private:
  void AddRoutes();
  static void OnEnqueue(IpFabric* fabric, LinkId link, ns3::Ptr<const ns3::Packet> packet);
  static void OnDrop(IpFabric* fabric, LinkId link, ns3::Ptr<const ns3::Packet> packet);
  static void OnTxBegin(IpFabric* fabric, LinkId link, ns3::Ptr<const ns3::Packet> packet);
  static void OnTxEnd(IpFabric* fabric, LinkId link, ns3::Ptr<const ns3::Packet> packet);

  const FabricGraph& m_graph;
  PacketSpec m_spec;
  IpAddressPlan m_plan;
  std::vector<ns3::Ptr<ns3::Node>> m_nodes;                     ///< by vertex id
  std::vector<ns3::Ptr<ns3::PointToPointNetDevice>> m_devices;  ///< by link id, on its source
  std::vector<uint32_t> m_interface;    ///< by link id: its device's IPv4 interface on the source
  std::vector<uint8_t> m_transmitting;  ///< by link id: a packet is on the wire (PhyTxBegin..End)
  std::vector<LinkCounters> m_counters;
  LinkFaults m_faults;
};

}  // namespace hfsim
