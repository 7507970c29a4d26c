// The fabric inside ns-3: one ns-3 node per NPU and switch, one point-to-point device per
// directed fabric link (a duplex channel per link pair), and a lean L2 forwarding path: each
// node's devices hand received packets straight to this class, which delivers them (at their
// destination NPU) or sends them on along the dimension-order route (no IP stack, no global
// routing). Queues, ECN marking, random loss and link-down intervals live here too.
#pragma once

#include <ns3/mac48-address.h>
#include <ns3/packet.h>
#include <ns3/point-to-point-net-device.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/packet/link-faults.h"
#include "sim/packet/link-reports.h"  // LinkCounters
#include "sim/packet/packet-header.h"
#include "sim/scenario/scenario.h"
#include "topologies/fabric-graph.h"

namespace hfsim {

class PacketFabric {
 public:
  /// Called at the destination NPU with the packet (header removed) and its header.
  using Deliver = std::function<void(uint32_t npu, const HfsimHeader& header)>;

  PacketFabric(const FabricGraph& graph, const PacketSpec& spec, uint64_t seed);

  void SetDeliver(Deliver deliver) { m_deliver = std::move(deliver); }
  /// Sends a packet with `header` and `payload_bytes` of payload from NPU header.src.
  void Send(const HfsimHeader& header);
  /// The link a packet from `src` to `dst` leaves `src` on (an NPU's first hop needs no ECMP).
  LinkId FirstLink(uint32_t src, uint32_t dst) const { return NextLink(src, dst, 0); }
  /// Bytes per ns of a link.
  double LinkRate_Bpns(LinkId link) const { return m_graph.Link(link).bandwidth_Bpns; }
  /// Wire bytes of a packet carrying `payload_bytes`.
  uint32_t WireBytes(uint32_t payload_bytes) const { return payload_bytes + m_spec.header_bytes; }

  const std::vector<LinkCounters>& Counters() const { return m_counters; }
  const FabricGraph& Graph() const { return m_graph; }

  /// In-network aggregation frames (sim/packet/ina-ps.h) share the links with the transport's
  /// packets but carry no HfsimHeader: they travel under PPP's IPv6 protocol number, so they are
  /// on the wire as frame + 2 bytes, and every node they reach (switches included) hands them to
  /// this callback instead of forwarding them.
  using FrameReceive = std::function<void(uint32_t vertex, std::vector<uint8_t> frame)>;
  void SetFrameReceive(FrameReceive receive) { m_frame_receive = std::move(receive); }
  /// Sends `frame` on `link` from its source node, with the link's faults, queue and counters.
  void SendFrame(LinkId link, const std::vector<uint8_t>& frame);

 private:
  static bool ReceiveFromDevice(PacketFabric* fabric, uint32_t vertex,
                                ns3::Ptr<ns3::NetDevice> device, ns3::Ptr<const ns3::Packet> packet,
                                uint16_t protocol, const ns3::Address& from);
  /// The link a packet at `vertex` for NPU `dst` takes next; `ecmp` (EcmpValue of its message)
  /// picks a Clos leaf's spine.
  LinkId NextLink(uint32_t vertex, uint32_t dst, uint64_t ecmp) const;
  uint64_t Ecmp(const HfsimHeader& header) const {
    return EcmpValue(m_seed, header.src, header.dst, header.flow);
  }
  /// Sends on `link` the packet with `header`: `packet` when forwarding one that arrived (its
  /// header already serialised), or a new one when null.
  void Transmit(LinkId link, HfsimHeader header, ns3::Ptr<ns3::Packet> packet);

  const FabricGraph& m_graph;
  PacketSpec m_spec;
  uint64_t m_seed;  ///< the scenario's: ECMP's hash, as the flow engine's
  std::vector<ns3::Ptr<ns3::PointToPointNetDevice>> m_devices;  ///< by link id, on its source
  std::vector<LinkCounters> m_counters;
  LinkFaults m_faults;
  Deliver m_deliver;
  FrameReceive m_frame_receive;
  uint32_t m_padding_bytes;
  ns3::Address m_broadcast =
      ns3::Mac48Address::GetBroadcast();  ///< point-to-point ignores it  ///< virtual bytes so a
                                          ///< packet's wire size is payload + header_bytes
};

}  // namespace hfsim
