#include "sim/packet/packet-fabric.h"

#include <ns3/mac48-address.h>
#include <ns3/node.h>
#include <ns3/queue.h>
#include <ns3/simulator.h>

#include "sim/packet/point-to-point-links.h"

namespace hfsim {

namespace {

constexpr uint16_t kProtocol =
    0x0800;  // PPP only frames IPv4/IPv6 numbers; no IP stack is installed
constexpr uint32_t kPppHeaderBytes = 2;
constexpr uint16_t kFrameProtocol = 0x86DD;  // aggregation frames (SendFrame), told apart by it

}  // namespace

PacketFabric::PacketFabric(const FabricGraph& graph, const PacketSpec& spec, uint64_t seed)
    : m_graph(graph), m_spec(spec), m_seed(seed), m_faults(graph, spec, seed) {
  m_padding_bytes = spec.header_bytes - HfsimHeader::kSerializedBytes - kPppHeaderBytes;
  const uint64_t links = graph.LinkCount();
  m_devices.resize(links);
  m_counters.resize(links);

  std::vector<ns3::Ptr<ns3::Node>> nodes(graph.NodeCount());
  for (auto& node : nodes) node = ns3::CreateObject<ns3::Node>();
  PointToPointLinkOptions options;
  options.queue_bytes = static_cast<uint32_t>(spec.queue_bytes);
  BuildPointToPointLinks(graph, options, nodes, m_devices,
                         [&](LinkId id, const ns3::Ptr<ns3::PointToPointNetDevice>& device) {
                           device->SetReceiveCallback(ns3::MakeBoundCallback(
                               &PacketFabric::ReceiveFromDevice, this,
                               static_cast<uint32_t>(graph.Link(id).source)));
                         });
}

bool PacketFabric::ReceiveFromDevice(PacketFabric* fabric, uint32_t vertex,
                                     ns3::Ptr<ns3::NetDevice>, ns3::Ptr<const ns3::Packet> packet,
                                     uint16_t protocol, const ns3::Address&) {
  if (protocol == kFrameProtocol) {
    std::vector<uint8_t> frame(packet->GetSize());
    packet->CopyData(frame.data(), static_cast<uint32_t>(frame.size()));
    fabric->m_frame_receive(vertex, std::move(frame));
    return true;
  }
  // `vertex` is the node this device sits on: the duplex channel brings it the packets that the
  // reverse link carries to that node.
  HfsimHeader header;
  packet->PeekHeader(header);
  if (vertex == header.dst) {
    fabric->m_deliver(vertex, header);
  } else {
    fabric->Transmit(fabric->NextLink(vertex, header.dst, fabric->Ecmp(header)), header,
                     packet->Copy());
  }
  return true;
}

LinkId PacketFabric::NextLink(uint32_t vertex, uint32_t dst, uint64_t ecmp) const {
  const Topology& topology = m_graph.GetTopology();
  if (m_graph.IsSwitch(vertex)) {
    // A switch of dimension d sends the packet on toward dst's coordinate in its group, as its
    // kind routes (DimensionShape::SwitchNextLink: a Switch down to it; on a Clos, a leaf that
    // does not hold it up to the spine ECMP picks, which sends it down to dst's leaf).
    const uint32_t d = m_graph.SwitchDimension(vertex);
    const uint32_t local = m_graph.LinksOf(d).Shape().SwitchNextLink(
        m_graph.SwitchIndex(vertex), topology.Coordinate(dst, d), ecmp);
    return m_graph.GroupLinkId(d, m_graph.SwitchGroup(vertex), local);
  }
  for (uint32_t d = 0; d < topology.DimensionCount(); ++d) {
    const uint32_t here = topology.Coordinate(vertex, d);
    const uint32_t there = topology.Coordinate(dst, d);
    if (here == there) continue;
    LinkId first = 0;
    bool found = false;
    m_graph.LinksOf(d).ForEachLinkOnRoute(here, there, [&](uint32_t local) {
      if (!found) first = m_graph.NpuLinkId(vertex, d, local);
      found = true;
    });
    return first;
  }
  return 0;  // unreachable: vertex == dst is delivered, never forwarded
}

void PacketFabric::Send(const HfsimHeader& header) {
  Transmit(NextLink(header.src, header.dst, 0), header, nullptr);
}

void PacketFabric::Transmit(LinkId link, HfsimHeader header, ns3::Ptr<ns3::Packet> packet) {
  LinkCounters& counters = m_counters[link];
  const double now_ns = ns3::Simulator::Now().GetPicoSeconds() * 1e-3;
  if (m_faults.HasFaults(link) && m_faults.Lose(link, now_ns)) {
    ++counters.drops_injected;
    return;
  }
  ns3::PointToPointNetDevice& device = *m_devices[link];
  ns3::Queue<ns3::Packet>& queue = *device.GetQueue();
  const bool mark = header.type == PacketType::kData && !header.ecn_marked &&
                    queue.GetNBytes() > m_spec.ecn_threshold_bytes;
  if (mark) {
    header.ecn_marked = true;
    ++counters.ecn_marks;
  }
  if (!packet) {
    packet = ns3::Create<ns3::Packet>(header.payload_bytes + m_padding_bytes);
    packet->AddHeader(header);
  } else if (mark) {
    HfsimHeader old;
    packet->RemoveHeader(old);
    packet->AddHeader(header);
  }
  const uint32_t wire = header.payload_bytes + m_spec.header_bytes;
  if (!device.Send(packet, m_broadcast, kProtocol)) {
    ++counters.drops_queue_full;
    return;
  }
  ++counters.packets;
  counters.bytes += wire;
  counters.queue_peak_bytes = std::max<uint64_t>(counters.queue_peak_bytes, queue.GetNBytes());
}

void PacketFabric::SendFrame(LinkId link, const std::vector<uint8_t>& frame) {
  LinkCounters& counters = m_counters[link];
  const double now_ns = ns3::Simulator::Now().GetPicoSeconds() * 1e-3;
  if (m_faults.HasFaults(link) && m_faults.Lose(link, now_ns)) {
    ++counters.drops_injected;
    return;
  }
  ns3::PointToPointNetDevice& device = *m_devices[link];
  auto packet = ns3::Create<ns3::Packet>(frame.data(), static_cast<uint32_t>(frame.size()));
  if (!device.Send(packet, m_broadcast, kFrameProtocol)) {
    ++counters.drops_queue_full;
    return;
  }
  ++counters.packets;
  counters.bytes += frame.size() + kPppHeaderBytes;
  counters.queue_peak_bytes =
      std::max<uint64_t>(counters.queue_peak_bytes, device.GetQueue()->GetNBytes());
}

}  // namespace hfsim
