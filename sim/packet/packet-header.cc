#include "sim/packet/packet-header.h"

namespace hfsim {

ns3::TypeId HfsimHeader::GetTypeId() {
  static ns3::TypeId tid =
      ns3::TypeId("hfsim::HfsimHeader").SetParent<ns3::Header>().AddConstructor<HfsimHeader>();
  return tid;
}

ns3::TypeId HfsimHeader::GetInstanceTypeId() const { return GetTypeId(); }

void HfsimHeader::Serialize(ns3::Buffer::Iterator start) const {
  start.WriteU8(static_cast<uint8_t>(type));
  start.WriteU8(ecn_marked ? 1 : 0);
  start.WriteHtonU32(src);
  start.WriteHtonU32(dst);
  start.WriteHtonU64(flow);
  start.WriteHtonU32(seq);
  start.WriteHtonU32(payload_bytes);
  start.WriteHtonU32(total_packets);
}

uint32_t HfsimHeader::Deserialize(ns3::Buffer::Iterator start) {
  type = static_cast<PacketType>(start.ReadU8());
  ecn_marked = start.ReadU8() != 0;
  src = start.ReadNtohU32();
  dst = start.ReadNtohU32();
  flow = start.ReadNtohU64();
  seq = start.ReadNtohU32();
  payload_bytes = start.ReadNtohU32();
  total_packets = start.ReadNtohU32();
  return kSerializedBytes;
}

void HfsimHeader::Print(std::ostream& os) const {
  os << "type=" << static_cast<int>(type) << " ecn=" << ecn_marked << " " << src << "->" << dst
     << " flow=" << flow << " seq=" << seq << " payload=" << payload_bytes;
}

}  // namespace hfsim
