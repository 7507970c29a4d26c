// The aggregation wire format: one packet against a byte dump written by hand from the layout in
// aggregation-packet.h (the P4 parser is written from the same layout), round trips, and refusals.
#include "models/aggregation/aggregation-packet.h"

#include <gtest/gtest.h>

namespace hfsim {
namespace {

AggregationPacket HandPacket() {
  AggregationPacket p;
  p.source = Endpoint::Worker(2);
  p.destination = Endpoint::Switch();
  p.udp_port = 0xBEE1;
  p.header.type = AggregationMessage::kUpdate;
  p.header.slot_set = 1;
  p.header.worker_id = 2;
  p.header.exponent = -3;
  p.header.slot = 0x0102;
  p.header.num_values = 2;
  p.header.worker_bitmap = 4;
  p.header.key_offset = 0x80;
  p.values = {1, -2};
  return p;
}

TEST(AggregationPacket, MatchesHandWrittenBytes) {
  // IPv4 checksum by hand: 4500+0034+0000+4000+4011+0000+0a01+0003+0a00+0001 = d94a, ~ = 26b5.
  // clang-format off
  const std::vector<uint8_t> expected = {
      0x02, 0x00, 0x00, 0x00, 0x00, 0x01,  // dst MAC: the switch
      0x02, 0x00, 0x00, 0x01, 0x00, 0x03,  // src MAC: worker 2
      0x08, 0x00,                          // IPv4
      0x45, 0x00, 0x00, 0x34, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x26, 0xb5,  // 52 bytes, DF, UDP
      0x0a, 0x01, 0x00, 0x03,              // 10.1.0.3
      0x0a, 0x00, 0x00, 0x01,              // 10.0.0.1
      0xbe, 0xe1, 0xbe, 0xe1, 0x00, 0x20, 0x00, 0x00,  // UDP, 32 bytes, no checksum
      0x01, 0x01, 0x02, 0xfd,              // update, set 1, worker 2, exponent -3
      0x01, 0x02, 0x02, 0x00,              // slot 258, 2 values, reserved
      0x00, 0x00, 0x00, 0x04,              // bitmap 1 << 2
      0x00, 0x00, 0x00, 0x80,              // key 128
      0x00, 0x00, 0x00, 0x01, 0xff, 0xff, 0xff, 0xfe};  // 1, -2
  // clang-format on
  const std::vector<uint8_t> bytes = SerializeAggregationPacket(HandPacket());
  EXPECT_EQ(bytes, expected);
  EXPECT_EQ(bytes.size(), HandPacket().FrameBytes());
}

TEST(AggregationPacket, RoundTripsEveryField) {
  AggregationPacket p = HandPacket();
  p.source = Endpoint::Switch();
  p.destination = Endpoint::Server(300);
  p.header.type = AggregationMessage::kResult;
  p.header.retransmission = true;
  p.header.slot_set = 0;
  p.header.worker_id = kAllWorkers;
  p.header.exponent = -126;
  p.header.worker_bitmap = 0xFFFFFFFF;
  p.header.key_offset = 0xFFFFFFC0;
  p.values = {INT32_MIN, INT32_MAX, 0, -1};
  p.header.num_values = 4;
  std::string error;
  const auto parsed = ParseAggregationPacket(SerializeAggregationPacket(p), 4, &error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(*parsed, p);
}

TEST(AggregationPacket, RefusesDamagedFrames) {
  const std::vector<uint8_t> good = SerializeAggregationPacket(HandPacket());
  std::string error;
  EXPECT_FALSE(ParseAggregationPacket(good, 3, &error));  // wrong K
  EXPECT_NE(error.find("expected 70"), std::string::npos) << error;
  auto bad = good;
  bad[26] ^= 1;  // source IP: checksum no longer holds
  EXPECT_FALSE(ParseAggregationPacket(bad, 2, &error));
  EXPECT_EQ(error, "bad IPv4 header checksum");
  bad = good;
  bad[42] = 3;  // unknown type
  EXPECT_FALSE(ParseAggregationPacket(bad, 2, &error));
  bad = good;
  bad[48] = 3;  // 3 valid values in a 2-value packet
  EXPECT_FALSE(ParseAggregationPacket(bad, 2, &error));
  EXPECT_TRUE(ParseAggregationPacket(good, 2, &error));
}

}  // namespace
}  // namespace hfsim
