#include "sim/packet/ip-fabric.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include <ns3/callback.h>
#include <ns3/drop-tail-queue.h>
#include <ns3/error-model.h>
#include <ns3/internet-stack-helper.h>
#include <ns3/ipv4-l3-protocol.h>
#include <ns3/ipv4-static-routing-helper.h>
#include <ns3/ipv4-static-routing.h>
#include <ns3/ipv4.h>
#include <ns3/simulator.h>
#include <ns3/queue-disc.h>
#include <ns3/traffic-control-layer.h>

#include "sim/packet/point-to-point-links.h"

namespace hfsim {

namespace {

// A link's faults, applied where its packets arrive: PointToPointNetDevice asks its receive error
// model about every packet it receives and drops the ones it calls corrupt.
class LinkFaultModel final : public ns3::ErrorModel {
 public:
  LinkFaultModel(IpFabric& fabric, LinkId link) : m_fabric(fabric), m_link(link) {}

 private:
  bool DoCorrupt(ns3::Ptr<ns3::Packet>) override { return m_fabric.LoseOnArrival(m_link); }
  void DoReset() override {}

  IpFabric& m_fabric;
  LinkId m_link;
};

// Longer than any route (checked against MaxRouteHops); the default 64 would not cover a long ring.
constexpr uint8_t kTtl = 255;

}  // namespace

IpFabric::IpFabric(const FabricGraph& graph, const PacketSpec& spec, uint64_t seed)
    : m_graph(graph),
      m_spec(spec),
      m_plan(graph.GetTopology().Dimensions()),
      m_faults(graph, spec, seed) {
  const std::vector<Dimension>& dimensions = graph.GetTopology().Dimensions();
  if (!m_plan.Fits()) {
    throw std::invalid_argument("IpFabric: NPU coordinates need " +
                                std::to_string(m_plan.TotalBits()) + " address bits, above 24");
  }
  if (MaxRouteHops(dimensions) > kTtl) {
    throw std::invalid_argument("IpFabric: routes are longer than IP's TTL allows");
  }
  if (graph.SwitchCount() >= (uint64_t{1} << IpAddressPlan::kFieldBits)) {
    throw std::invalid_argument("IpFabric: too many switches to number in 11.0.0.0/8");
  }
  const uint64_t links = graph.LinkCount();
  m_devices.resize(links);
  m_interface.assign(links, 0);
  m_transmitting.assign(links, 0);
  m_counters.resize(links);

  // IPv4 with static routing only: no IPv6, no global routing, no list of routing protocols
  // to consult on every packet.
  ns3::InternetStackHelper stack;
  stack.SetIpv6StackInstall(false);
  stack.SetRoutingHelper(ns3::Ipv4StaticRoutingHelper());
  m_nodes.resize(graph.NodeCount());
  for (auto& node : m_nodes) {
    node = ns3::CreateObject<ns3::Node>();
    stack.Install(node);
    node->GetObject<ns3::Ipv4L3Protocol>()->SetDefaultTtl(kTtl);
  }

  auto node_address = [&](VertexId vertex) {
    if (graph.IsSwitch(vertex)) {
      return ns3::Ipv4Address(IpAddressPlan::kSwitchNetwork +
                              static_cast<uint32_t>(vertex - graph.NpuCount()));
    }
    return NpuAddress(vertex);
  };

  // Devices and channels as PacketFabric has them (point-to-point-links.h); then each device
  // becomes an IPv4 interface carrying its node's address.
  PointToPointLinkOptions options;
  options.queue_bytes = static_cast<uint32_t>(spec.queue_bytes);
  options.require_reverse = true;
  const std::vector<LinkId> peer = BuildPointToPointLinks(
      graph, options, m_nodes, m_devices,
      [&](LinkId id, const ns3::Ptr<ns3::PointToPointNetDevice>& device) {
        const VertexId source = graph.Link(id).source;
        ns3::Ptr<ns3::Queue<ns3::Packet>> queue = device->GetQueue();
        queue->TraceConnectWithoutContext("Enqueue",
                                          ns3::MakeBoundCallback(&IpFabric::OnEnqueue, this, id));
        queue->TraceConnectWithoutContext("Drop",
                                          ns3::MakeBoundCallback(&IpFabric::OnDrop, this, id));
        device->TraceConnectWithoutContext("PhyTxBegin",
                                           ns3::MakeBoundCallback(&IpFabric::OnTxBegin, this, id));
        device->TraceConnectWithoutContext("PhyTxEnd",
                                           ns3::MakeBoundCallback(&IpFabric::OnTxEnd, this, id));
        ns3::Ptr<ns3::Ipv4> ipv4 = m_nodes[source]->GetObject<ns3::Ipv4>();
        const uint32_t interface = ipv4->AddInterface(device);
        ipv4->AddAddress(interface, ns3::Ipv4InterfaceAddress(node_address(source),
                                                              ns3::Ipv4Mask(0xffffffffu)));
        ipv4->SetUp(interface);
        m_interface[id] = interface;
        // Packets must meet the device's own drop-tail queue, as in PacketFabric, and no queue
        // disc in front of it (Ipv4AddressHelper::Assign would have added one).
        if (m_nodes[source]->GetObject<ns3::TrafficControlLayer>()->GetRootQueueDiscOnDevice(
                device)) {
          throw std::logic_error("IpFabric: a queue disc sits in front of a device");
        }
      });
  // Each device receives what its peer sends: link l's faults sit on its reverse's device.
  for (LinkId l = 0; l < links; ++l) {
    if (m_faults.HasFaults(l)) {
      m_devices[peer[l]]->SetReceiveErrorModel(ns3::CreateObject<LinkFaultModel>(*this, l));
    }
  }
  AddRoutes();
}

ns3::Ipv4Address IpFabric::NpuAddress(uint32_t npu) const {
  return ns3::Ipv4Address(m_plan.NpuAddress(m_graph.GetTopology().Coordinates(npu)));
}

uint32_t IpFabric::NpuOf(ns3::Ipv4Address address) const {
  const Topology& topology = m_graph.GetTopology();
  std::vector<uint32_t> coordinates(topology.DimensionCount());
  for (uint32_t d = 0; d < coordinates.size(); ++d) {
    coordinates[d] = m_plan.Coordinate(address.Get(), d);
  }
  return static_cast<uint32_t>(topology.NpuId(coordinates));
}

// The routes of PacketFabric::NextLink, written as IPv4 routes. An NPU whose first differing
// dimension with the destination is d forwards along d toward the destination's coordinate there
// (a destination that agrees with it up to d matches exactly one of its routes); a switch of
// dimension d sends on toward the destination's coordinate in d as its kind routes.
void IpFabric::AddRoutes() {
  const Topology& topology = m_graph.GetTopology();
  const ns3::Ipv4StaticRoutingHelper helper;
  for (VertexId vertex = 0; vertex < m_nodes.size(); ++vertex) {
    ns3::Ptr<ns3::Ipv4StaticRouting> routing =
        helper.GetStaticRouting(m_nodes[vertex]->GetObject<ns3::Ipv4>());
    auto add = [&](uint32_t network, uint32_t mask, LinkId link) {
      routing->AddNetworkRouteTo(ns3::Ipv4Address(network), ns3::Ipv4Mask(mask), m_interface[link]);
    };
    if (m_graph.IsSwitch(vertex)) {
      const uint32_t d = m_graph.SwitchDimension(vertex);
      const uint32_t n = topology.Dim(d).size;
      const DimensionShape& shape = m_graph.LinksOf(d).Shape();
      std::vector<uint32_t> coordinates(topology.DimensionCount(), 0);
      for (uint32_t c = 0; c < n; ++c) {
        coordinates[d] = c;
        // No ECMP value: static tables have one path per destination (a kind that routes by
        // ECMP is refused with TCP).
        const uint32_t local = shape.SwitchNextLink(m_graph.SwitchIndex(vertex), c, 0);
        const LinkId next = m_graph.GroupLinkId(d, m_graph.SwitchGroup(vertex), local);
        add(m_plan.NpuAddress(coordinates), m_plan.FieldMask(d), next);
      }
      continue;
    }
    std::vector<uint32_t> coordinates = topology.Coordinates(vertex);
    for (uint32_t d = 0; d < topology.DimensionCount(); ++d) {
      const uint32_t here = coordinates[d];
      std::vector<uint32_t> prefix(coordinates.begin(), coordinates.begin() + d + 1);
      for (uint32_t there = 0; there < topology.Dim(d).size; ++there) {
        if (there == here) continue;
        LinkId first = 0;
        bool found = false;
        m_graph.LinksOf(d).ForEachLinkOnRoute(here, there, [&](uint32_t local) {
          if (!found) first = m_graph.NpuLinkId(vertex, d, local);
          found = true;
        });
        prefix[d] = there;
        add(m_plan.NpuAddress(prefix), m_plan.PrefixMask(d), first);
      }
    }
  }
}

bool IpFabric::LoseOnArrival(LinkId link) {
  const double now_ns = ns3::Simulator::Now().GetPicoSeconds() * 1e-3;
  const bool lost = m_faults.Lose(link, now_ns);
  if (lost) ++m_counters[link].drops_injected;
  return lost;
}

void IpFabric::OnEnqueue(IpFabric* fabric, LinkId link, ns3::Ptr<const ns3::Packet> packet) {
  LinkCounters& counters = fabric->m_counters[link];
  const uint32_t wire = packet->GetSize();  // IPv4 + TCP headers and options + PPP's 2 bytes
  ++counters.packets;
  counters.bytes += wire;
  // Bytes waiting behind the wire, as PacketFabric measures it: an idle device takes this
  // packet straight off the (then empty) queue.
  const uint64_t queued = fabric->m_devices[link]->GetQueue()->GetNBytes();
  const uint64_t waiting = fabric->m_transmitting[link] || queued < wire ? queued : queued - wire;
  counters.queue_peak_bytes = std::max(counters.queue_peak_bytes, waiting);
}

void IpFabric::OnDrop(IpFabric* fabric, LinkId link, ns3::Ptr<const ns3::Packet>) {
  ++fabric->m_counters[link].drops_queue_full;
}

void IpFabric::OnTxBegin(IpFabric* fabric, LinkId link, ns3::Ptr<const ns3::Packet>) {
  fabric->m_transmitting[link] = 1;
}

void IpFabric::OnTxEnd(IpFabric* fabric, LinkId link, ns3::Ptr<const ns3::Packet>) {
  fabric->m_transmitting[link] = 0;
}

}  // namespace hfsim
