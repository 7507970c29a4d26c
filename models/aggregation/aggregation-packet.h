// The aggregation protocol's wire format: what workers send to the switch, and what the switch
// sends back (or on to a parameter server). Serialised exactly, in network byte order, with full
// Ethernet + IPv4 + UDP framing and deterministic addresses, so test vectors can be written as
// bytes (pcap / JSON) and fed to the P4 program and the model alike.
//
// Frame layout (offsets in bytes; K = values_per_packet; all multi-byte fields big-endian):
//
//   Ethernet (14)   0  dst MAC (6)        6  src MAC (6)       12  ethertype 0x0800
//   IPv4 (20)      14  0x45 (v4, IHL 5)  15  DSCP/ECN 0        16  total length = 44 + V
//                  18  id 0              20  flags 0x4000 (DF) 22  TTL 64   23  protocol 17
//                  24  header checksum   26  src IP (4)        30  dst IP (4)
//   UDP (8)        34  src port          36  dst port          38  length = 24 + V
//                  40  checksum 0 (none; allowed for IPv4, so the switch need not recompute it)
//   Aggregation    42  type: 1 update (worker -> switch), 2 result (switch -> worker or server)
//   header (16)    43  flags: bit 0 slot set (shadow copy), bit 1 retransmission (on a result:
//                      the unicast answer to a worker's retransmitted update), others 0
//                  44  worker id: updates, the sender; results, the destination worker, or 0xFF
//                      (kAllWorkers) for a result the switch forwards to a parameter server
//                  45  block exponent (int8, two's complement); results: the slot's max exponent
//                  46  slot index (16 bits)
//                  48  number of valid values (8 bits, 0..K; values beyond it are 0)
//                  49  reserved, 0
//                  50  worker bitmap (32 bits): updates, 1 << worker id; results, the contributors
//                  54  key offset (32 bits): the tensor index (or sparse key) of the first value
//   Values         58  V bytes: K x int32 (two's complement), always K of them (V = 4K: 58 + 4K
//                      bytes in all)
//                      THC jobs (thc_bits b > 0, aggregation-spec.h): an update carries K b-bit
//                      table indices packed little-endian, low bits first (K b / 8 bytes: two
//                      4-bit indices a byte, the first in the low nibble); a result carries K
//                      8-bit lane sums, one byte each (58 + K bytes)
//
// Both UDP ports are the job's (0xBEE0 + job id). Addresses (kind: 0 switch, 1 worker, 2 server;
// n = index + 1): MAC 02:00:00:kind:n>>8:n&255, IPv4 10.kind.(n>>8).(n&255). So the switch is
// 02:00:00:00:00:01 / 10.0.0.1, worker 0 is 02:00:00:01:00:01 / 10.1.0.1, server 0 is 10.2.0.1.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hfsim {

inline constexpr uint32_t kEthernetHeaderBytes = 14;
inline constexpr uint32_t kIpv4HeaderBytes = 20;
inline constexpr uint32_t kUdpHeaderBytes = 8;
inline constexpr uint32_t kAggregationHeaderBytes = 16;
/// Bytes before the values: Ethernet + IPv4 + UDP + aggregation header.
inline constexpr uint32_t kFrameHeaderBytes =
    kEthernetHeaderBytes + kIpv4HeaderBytes + kUdpHeaderBytes + kAggregationHeaderBytes;
inline constexpr uint8_t kAllWorkers = 0xFF;

enum class EndpointKind : uint8_t { kSwitch = 0, kWorker = 1, kServer = 2 };

/// A host of the protocol; the index of a worker is its worker id, of a server its shard.
struct Endpoint {
  EndpointKind kind = EndpointKind::kSwitch;
  uint16_t index = 0;

  static Endpoint Switch() { return {EndpointKind::kSwitch, 0}; }
  static Endpoint Worker(uint32_t id) { return {EndpointKind::kWorker, static_cast<uint16_t>(id)}; }
  static Endpoint Server(uint32_t shard) {
    return {EndpointKind::kServer, static_cast<uint16_t>(shard)};
  }
  std::array<uint8_t, 6> Mac() const;
  uint32_t Ipv4() const;  ///< host order
  bool operator==(const Endpoint&) const = default;
};

enum class AggregationMessage : uint8_t { kUpdate = 1, kResult = 2 };

struct AggregationHeader {
  AggregationMessage type = AggregationMessage::kUpdate;
  uint8_t slot_set = 0;         ///< 0 or 1 (flags bit 0)
  bool retransmission = false;  ///< flags bit 1
  uint8_t worker_id = 0;
  int8_t exponent = 0;
  uint16_t slot = 0;
  uint8_t num_values = 0;
  uint32_t worker_bitmap = 0;
  uint32_t key_offset = 0;
  bool operator==(const AggregationHeader&) const = default;
};

struct AggregationPacket {
  Endpoint source;
  Endpoint destination;
  uint16_t udp_port = 0xBEE0;
  AggregationHeader header;
  std::vector<int32_t> values;  ///< always values_per_packet entries
  /// 0: int32 values. b > 0: a THC job's packet (updates: b-bit indices; results: 8-bit lanes).
  uint8_t thc_bits = 0;
  bool operator==(const AggregationPacket&) const = default;

  /// Bytes the values take on the wire.
  uint32_t ValueBytes() const {
    const auto k = static_cast<uint32_t>(values.size());
    if (thc_bits == 0) return 4 * k;
    return header.type == AggregationMessage::kUpdate ? (k * thc_bits + 7) / 8 : k;
  }
  /// Wire size: kFrameHeaderBytes + ValueBytes().
  uint32_t FrameBytes() const { return kFrameHeaderBytes + ValueBytes(); }
};

/// The frame, byte for byte as laid out above. Throws std::invalid_argument on a THC value that
/// does not fit its field (an index of b bits or more, a lane sum above 255).
std::vector<uint8_t> SerializeAggregationPacket(const AggregationPacket& packet);

/// Parses a frame of a job with `values_per_packet` values (`thc_bits` > 0: a THC job). On
/// failure returns nullopt and says why in *error (wrong length, ethertype, IP header, checksum,
/// protocol, port, unknown address, type or flags).
std::optional<AggregationPacket> ParseAggregationPacket(std::span<const uint8_t> frame,
                                                        uint32_t values_per_packet,
                                                        std::string* error, uint32_t thc_bits = 0);

/// One line for logs and test failures: "update w3->switch set 1 slot 7 key 448 n 64 e -3".
std::string Describe(const AggregationPacket& packet);

}  // namespace hfsim
