// The switch model on hand-computed cases: the exact packets out for each packet in, as the P4
// program's test vectors will list them.
#include <gtest/gtest.h>

#include "models/aggregation/switch-aggregator.h"

namespace hfsim {
namespace {

AggregationSwitchSpec SmallSpec() {
  AggregationSwitchSpec spec;
  spec.workers = 3;
  spec.aggregator_slots = 4;
  spec.values_per_packet = 2;
  return spec;
}

AggregationPacket Update(uint32_t worker, uint8_t set, uint16_t slot, std::vector<int32_t> values,
                         int8_t exponent = 0, uint32_t key = 0) {
  AggregationPacket p;
  p.source = Endpoint::Worker(worker);
  p.destination = Endpoint::Switch();
  p.header.worker_id = static_cast<uint8_t>(worker);
  p.header.worker_bitmap = uint32_t{1} << worker;
  p.header.slot_set = set;
  p.header.slot = slot;
  p.header.exponent = exponent;
  p.header.key_offset = key;
  p.header.num_values = static_cast<uint8_t>(values.size());
  p.values = std::move(values);
  return p;
}

TEST(SwitchAggregator, AddsThreeWorkersAndMulticastsTheSum) {
  SwitchAggregator sw(SmallSpec());
  EXPECT_TRUE(sw.Receive(Update(0, 0, 1, {1, 2}, -3, 64)).empty());
  EXPECT_TRUE(sw.Receive(Update(2, 0, 1, {10, -20}, 5, 64)).empty());
  const auto out = sw.Receive(Update(1, 0, 1, {100, 200}, 0, 64));
  ASSERT_EQ(out.size(), 3u);
  for (uint32_t w = 0; w < 3; ++w) {
    EXPECT_EQ(out[w].destination, Endpoint::Worker(w));
    EXPECT_EQ(out[w].source, Endpoint::Switch());
    EXPECT_EQ(out[w].header.type, AggregationMessage::kResult);
    EXPECT_EQ(out[w].header.worker_id, w);
    EXPECT_EQ(out[w].header.exponent, 5);
    EXPECT_EQ(out[w].header.worker_bitmap, 0b111u);
    EXPECT_EQ(out[w].header.key_offset, 64u);
    EXPECT_EQ(out[w].header.slot, 1u);
    EXPECT_EQ(out[w].values, (std::vector<int32_t>{111, 182}));
  }
  EXPECT_EQ(sw.Counters().slots_completed, 1u);
}

TEST(SwitchAggregator, DuplicatesAreDroppedOrAnsweredWithTheResult) {
  SwitchAggregator sw(SmallSpec());
  sw.Receive(Update(0, 0, 0, {1, 1}));
  EXPECT_TRUE(sw.Receive(Update(0, 0, 0, {1, 1})).empty());  // not complete: dropped
  EXPECT_EQ(sw.Registers(0, 0).values, (std::vector<int32_t>{1, 1}));
  sw.Receive(Update(1, 0, 0, {2, 2}));
  EXPECT_EQ(sw.Receive(Update(2, 0, 0, {3, 3})).size(), 3u);
  // Worker 1 lost its result and retransmits: it alone gets the result again.
  const auto again = sw.Receive(Update(1, 0, 0, {2, 2}));
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].destination, Endpoint::Worker(1));
  EXPECT_TRUE(again[0].header.retransmission);
  EXPECT_EQ(again[0].values, (std::vector<int32_t>{6, 6}));
  EXPECT_EQ(sw.Counters().duplicates_dropped, 1u);
  EXPECT_EQ(sw.Counters().results_resent, 1u);
  EXPECT_EQ(sw.Counters().updates_aggregated, 3u);
}

TEST(SwitchAggregator, ShadowSetsAreReusedAfterEveryWorkerMovesOn) {
  SwitchAggregator sw(SmallSpec());
  for (uint32_t w = 0; w < 3; ++w) sw.Receive(Update(w, 0, 2, {1, 0}));
  // Round 2 in set 1 clears each worker's bit in set 0 as it arrives.
  sw.Receive(Update(0, 1, 2, {5, 0}));
  EXPECT_EQ(sw.Registers(0, 2).bitmap, 0b110u);
  sw.Receive(Update(1, 1, 2, {5, 0}));
  EXPECT_EQ(sw.Receive(Update(2, 1, 2, {5, 0}))[0].values[0], 15);
  EXPECT_EQ(sw.Registers(0, 2).bitmap, 0u);
  // Round 3 reuses set 0: the first packet overwrites the old sum.
  sw.Receive(Update(0, 0, 2, {7, 0}));
  EXPECT_EQ(sw.Registers(0, 2).values[0], 7);
  EXPECT_EQ(sw.Registers(0, 2).count, 1u);
}

TEST(SwitchAggregator, SaturatesOrWrapsLikeInt32) {
  AggregationSwitchSpec spec = SmallSpec();
  spec.workers = 2;
  spec.overflow = OverflowBehaviour::kSaturate;
  SwitchAggregator saturating(spec);
  saturating.Receive(Update(0, 0, 0, {INT32_MAX, INT32_MIN}));
  auto out = saturating.Receive(Update(1, 0, 0, {1, -1}));
  EXPECT_EQ(out[0].values, (std::vector<int32_t>{INT32_MAX, INT32_MIN}));
  spec.overflow = OverflowBehaviour::kWrap;
  SwitchAggregator wrapping(spec);
  wrapping.Receive(Update(0, 0, 0, {INT32_MAX, INT32_MIN}));
  out = wrapping.Receive(Update(1, 0, 0, {1, -1}));
  EXPECT_EQ(out[0].values, (std::vector<int32_t>{INT32_MIN, INT32_MAX}));
}

TEST(SwitchAggregator, ParameterServerModeSendsToTheOwningShard) {
  AggregationSwitchSpec spec = SmallSpec();
  spec.workers = 2;
  spec.mode = AggregationMode::kParameterServer;
  spec.server_shards = 3;
  spec.hot_key_capacity_keys = 10;
  SwitchAggregator sw(spec);
  sw.Receive(Update(0, 0, 0, {1, 2}, 0, 8));
  auto out = sw.Receive(Update(1, 0, 0, {3, 4}, 0, 8));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].destination, Endpoint::Server(1));  // (8 / 2) % 3
  EXPECT_EQ(out[0].header.worker_id, kAllWorkers);
  EXPECT_EQ(out[0].values, (std::vector<int32_t>{4, 6}));
  // Retransmission after completion: forwarded to the server on behalf of worker 1.
  out = sw.Receive(Update(1, 0, 0, {3, 4}, 0, 8));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].destination, Endpoint::Server(1));
  EXPECT_EQ(out[0].header.worker_id, 1u);
  EXPECT_TRUE(out[0].header.retransmission);
  // A cold key (10 >= capacity) passes through unchanged to its shard, (10 / 2) % 3 = 2.
  const AggregationPacket cold = Update(0, 0, 1, {9, 9}, 0, 10);
  out = sw.Receive(cold);
  ASSERT_EQ(out.size(), 1u);
  AggregationPacket expected = cold;
  expected.destination = Endpoint::Server(2);
  EXPECT_EQ(out[0], expected);
  EXPECT_EQ(sw.Registers(0, 1).count, 0u);
}

TEST(SwitchAggregator, RejectsWhatIsNotAWellFormedUpdate) {
  SwitchAggregator sw(SmallSpec());
  AggregationPacket p = Update(0, 0, 4, {1, 1});  // slot 4 of 4
  EXPECT_TRUE(sw.Receive(p).empty());
  p = Update(3, 0, 0, {1, 1});  // worker 3 of 3
  EXPECT_TRUE(sw.Receive(p).empty());
  p = Update(0, 0, 0, {1, 1});
  p.header.worker_bitmap = 2;  // not 1 << worker id
  EXPECT_TRUE(sw.Receive(p).empty());
  p = Update(0, 0, 0, {1, 1});
  p.udp_port = 0xBEE1;  // another job
  EXPECT_TRUE(sw.Receive(p).empty());
  EXPECT_EQ(sw.Counters().rejected, 4u);
  EXPECT_EQ(sw.Registers(0, 0).bitmap, 0u);
}

}  // namespace
}  // namespace hfsim
