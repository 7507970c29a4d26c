#include "models/aggregation/aggregation-packet.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace hfsim {

namespace {

constexpr uint16_t kEthertypeIpv4 = 0x0800;
constexpr uint8_t kProtocolUdp = 17;
constexpr uint8_t kTtl = 64;
constexpr uint16_t kDontFragment = 0x4000;
constexpr uint8_t kFlagSlotSet = 0x01;
constexpr uint8_t kFlagRetransmission = 0x02;

void Put8(std::vector<uint8_t>& out, uint32_t v) { out.push_back(static_cast<uint8_t>(v)); }
void Put16(std::vector<uint8_t>& out, uint32_t v) {
  out.push_back(static_cast<uint8_t>(v >> 8));
  out.push_back(static_cast<uint8_t>(v));
}
void Put32(std::vector<uint8_t>& out, uint32_t v) {
  Put16(out, v >> 16);
  Put16(out, v & 0xFFFF);
}

uint16_t Get16(std::span<const uint8_t> b, size_t at) {
  return static_cast<uint16_t>((b[at] << 8) | b[at + 1]);
}
uint32_t Get32(std::span<const uint8_t> b, size_t at) {
  return (uint32_t{Get16(b, at)} << 16) | Get16(b, at + 2);
}

// RFC 791 header checksum: ones' complement of the ones' complement sum of 16-bit words.
uint16_t Ipv4Checksum(std::span<const uint8_t> header) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < header.size(); i += 2) sum += Get16(header, i);
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

uint32_t HostNumber(const Endpoint& e) { return uint32_t{e.index} + 1; }

std::optional<Endpoint> EndpointFromIpv4(uint32_t ip) {
  if ((ip >> 24) != 10) return std::nullopt;
  const uint32_t kind = (ip >> 16) & 0xFF;
  const uint32_t number = ip & 0xFFFF;
  if (kind > 2 || number == 0) return std::nullopt;
  if (kind == 0 && number != 1) return std::nullopt;
  return Endpoint{static_cast<EndpointKind>(kind), static_cast<uint16_t>(number - 1)};
}

std::string Name(const Endpoint& e) {
  switch (e.kind) {
    case EndpointKind::kSwitch:
      return "switch";
    case EndpointKind::kWorker:
      return fmt::format("w{}", e.index);
    case EndpointKind::kServer:
      return fmt::format("s{}", e.index);
  }
  return "?";
}

// THC updates: b-bit indices, little-endian, low bits first.
void PutThcIndices(std::vector<uint8_t>& out, const std::vector<int32_t>& indices, uint32_t bits) {
  const size_t start = out.size();
  out.resize(start + (indices.size() * bits + 7) / 8, 0);
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] < 0 || indices[i] >= (1 << bits)) {
      throw std::invalid_argument(fmt::format("THC index {} does not fit {} bits", indices[i], bits));
    }
    const size_t bit = i * bits;
    out[start + bit / 8] |= static_cast<uint8_t>(indices[i] << (bit % 8));
  }
}

int32_t GetThcIndex(std::span<const uint8_t> bytes, size_t i, uint32_t bits) {
  const size_t bit = i * bits;
  return (bytes[bit / 8] >> (bit % 8)) & ((1 << bits) - 1);
}

}  // namespace

std::array<uint8_t, 6> Endpoint::Mac() const {
  const uint32_t n = HostNumber(*this);
  return {0x02,
          0x00,
          0x00,
          static_cast<uint8_t>(kind),
          static_cast<uint8_t>(n >> 8),
          static_cast<uint8_t>(n & 0xFF)};
}

uint32_t Endpoint::Ipv4() const {
  return (uint32_t{10} << 24) | (uint32_t{static_cast<uint8_t>(kind)} << 16) | HostNumber(*this);
}

std::vector<uint8_t> SerializeAggregationPacket(const AggregationPacket& packet) {
  const uint32_t value_bytes = packet.ValueBytes();
  std::vector<uint8_t> out;
  out.reserve(kFrameHeaderBytes + value_bytes);
  for (uint8_t b : packet.destination.Mac()) out.push_back(b);
  for (uint8_t b : packet.source.Mac()) out.push_back(b);
  Put16(out, kEthertypeIpv4);
  const size_t ip_start = out.size();
  Put8(out, 0x45);
  Put8(out, 0);
  Put16(out, kIpv4HeaderBytes + kUdpHeaderBytes + kAggregationHeaderBytes + value_bytes);
  Put16(out, 0);
  Put16(out, kDontFragment);
  Put8(out, kTtl);
  Put8(out, kProtocolUdp);
  Put16(out, 0);  // checksum, filled below
  Put32(out, packet.source.Ipv4());
  Put32(out, packet.destination.Ipv4());
  const uint16_t checksum = Ipv4Checksum(std::span(out).subspan(ip_start, kIpv4HeaderBytes));
  out[ip_start + 10] = static_cast<uint8_t>(checksum >> 8);
  out[ip_start + 11] = static_cast<uint8_t>(checksum);
  Put16(out, packet.udp_port);
  Put16(out, packet.udp_port);
  Put16(out, kUdpHeaderBytes + kAggregationHeaderBytes + value_bytes);
  Put16(out, 0);
  const AggregationHeader& h = packet.header;
  Put8(out, static_cast<uint8_t>(h.type));
  Put8(out, (h.slot_set & kFlagSlotSet) | (h.retransmission ? kFlagRetransmission : 0));
  Put8(out, h.worker_id);
  Put8(out, static_cast<uint8_t>(h.exponent));
  Put16(out, h.slot);
  Put8(out, h.num_values);
  Put8(out, 0);
  Put32(out, h.worker_bitmap);
  Put32(out, h.key_offset);
  if (packet.thc_bits == 0) {
    for (int32_t v : packet.values) Put32(out, static_cast<uint32_t>(v));
  } else if (h.type == AggregationMessage::kUpdate) {
    PutThcIndices(out, packet.values, packet.thc_bits);
  } else {
    for (int32_t lane : packet.values) {
      if (lane < 0 || lane > 255) {
        throw std::invalid_argument(fmt::format("THC lane sum {} does not fit 8 bits", lane));
      }
      Put8(out, static_cast<uint8_t>(lane));
    }
  }
  return out;
}

std::optional<AggregationPacket> ParseAggregationPacket(std::span<const uint8_t> frame,
                                                        uint32_t values_per_packet,
                                                        std::string* error, uint32_t thc_bits) {
  auto fail = [&](std::string why) -> std::optional<AggregationPacket> {
    if (error != nullptr) *error = std::move(why);
    return std::nullopt;
  };
  // A THC job's updates and results differ in length: the type byte says which this is.
  const size_t type_at = kEthernetHeaderBytes + kIpv4HeaderBytes + kUdpHeaderBytes;
  const bool thc_update = thc_bits > 0 && frame.size() > type_at &&
                          frame[type_at] == static_cast<uint8_t>(AggregationMessage::kUpdate);
  const size_t value_bytes = thc_bits == 0 ? 4 * size_t{values_per_packet}
                             : thc_update  ? (size_t{values_per_packet} * thc_bits + 7) / 8
                                           : size_t{values_per_packet};
  const size_t expected = kFrameHeaderBytes + value_bytes;
  if (frame.size() != expected) {
    return fail(fmt::format("frame has {} bytes, expected {} for {} values", frame.size(), expected,
                            values_per_packet));
  }
  if (Get16(frame, 12) != kEthertypeIpv4) return fail("ethertype is not IPv4");
  const auto ip = frame.subspan(kEthernetHeaderBytes, kIpv4HeaderBytes);
  if (ip[0] != 0x45) return fail("not an IPv4 header without options");
  if (Get16(ip, 2) != expected - kEthernetHeaderBytes) return fail("IPv4 total length mismatch");
  if (ip[9] != kProtocolUdp) return fail("IP protocol is not UDP");
  if (Ipv4Checksum(ip) != 0) return fail("bad IPv4 header checksum");
  const auto source = EndpointFromIpv4(Get32(ip, 12));
  const auto destination = EndpointFromIpv4(Get32(ip, 16));
  if (!source || !destination) return fail("address outside the aggregation address plan");
  if (!std::equal(frame.begin(), frame.begin() + 6, destination->Mac().begin()) ||
      !std::equal(frame.begin() + 6, frame.begin() + 12, source->Mac().begin())) {
    return fail("MAC addresses do not match the IP addresses");
  }
  const size_t udp = kEthernetHeaderBytes + kIpv4HeaderBytes;
  AggregationPacket packet;
  packet.source = *source;
  packet.destination = *destination;
  packet.udp_port = Get16(frame, udp + 2);
  if (Get16(frame, udp) != packet.udp_port) return fail("UDP source and destination ports differ");
  if (Get16(frame, udp + 4) != expected - udp) return fail("UDP length mismatch");
  const size_t agg = udp + kUdpHeaderBytes;
  AggregationHeader& h = packet.header;
  if (frame[agg] != 1 && frame[agg] != 2) return fail(fmt::format("unknown type {}", frame[agg]));
  h.type = static_cast<AggregationMessage>(frame[agg]);
  if ((frame[agg + 1] & ~(kFlagSlotSet | kFlagRetransmission)) != 0) return fail("unknown flags");
  h.slot_set = frame[agg + 1] & kFlagSlotSet;
  h.retransmission = (frame[agg + 1] & kFlagRetransmission) != 0;
  h.worker_id = frame[agg + 2];
  h.exponent = static_cast<int8_t>(frame[agg + 3]);
  h.slot = Get16(frame, agg + 4);
  h.num_values = frame[agg + 6];
  if (h.num_values > values_per_packet) return fail("more valid values than the packet carries");
  h.worker_bitmap = Get32(frame, agg + 8);
  h.key_offset = Get32(frame, agg + 12);
  packet.values.resize(values_per_packet);
  packet.thc_bits = static_cast<uint8_t>(thc_bits);
  const auto payload = frame.subspan(kFrameHeaderBytes);
  for (uint32_t i = 0; i < values_per_packet; ++i) {
    packet.values[i] = thc_bits == 0 ? static_cast<int32_t>(Get32(payload, 4 * i))
                       : thc_update  ? GetThcIndex(payload, i, thc_bits)
                                     : payload[i];
  }
  return packet;
}

std::string Describe(const AggregationPacket& p) {
  const AggregationHeader& h = p.header;
  return fmt::format("{}{} {}->{} set {} slot {} key {} n {} e {} w {} bitmap {:#x}",
                     h.type == AggregationMessage::kUpdate ? "update" : "result",
                     h.retransmission ? " (retransmission)" : "", Name(p.source),
                     Name(p.destination), h.slot_set, h.slot, h.key_offset, h.num_values,
                     h.exponent, h.worker_id, h.worker_bitmap);
}

}  // namespace hfsim
