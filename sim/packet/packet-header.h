// The header every hfsim packet carries on the simulated wire (inside ns-3 only).
//
// One header serves data, acknowledgements and congestion notifications: the fabric forwards on
// `dst` alone (dimension-order routing, no per-packet route), the transport reads the rest.
#pragma once

#include <cstdint>

#include <ns3/header.h>

namespace hfsim {

enum class PacketType : uint8_t { kData = 0, kAck = 1, kNack = 2, kCnp = 3 };

class HfsimHeader : public ns3::Header {
 public:
  static ns3::TypeId GetTypeId();
  ns3::TypeId GetInstanceTypeId() const override;
  uint32_t GetSerializedSize() const override { return kSerializedBytes; }
  void Serialize(ns3::Buffer::Iterator start) const override;
  uint32_t Deserialize(ns3::Buffer::Iterator start) override;
  void Print(std::ostream& os) const override;

  static constexpr uint32_t kSerializedBytes = 1 + 1 + 4 + 4 + 8 + 4 + 4 + 4;

  PacketType type = PacketType::kData;
  bool ecn_marked = false;
  uint32_t src = 0;   ///< NPU that sent this packet
  uint32_t dst = 0;   ///< NPU it is for
  uint64_t flow = 0;  ///< the message (one flow per message, like one RDMA write per QP)
  uint32_t seq = 0;   ///< data: packet index in the message; ack/nack: next packet expected
  uint32_t payload_bytes = 0;
  uint32_t total_packets = 0;  ///< data: packets in the whole message (tells the receiver when it is done)
};

}  // namespace hfsim
