// The Tofino fit check: SwitchML's defaults fit Tofino-1 with the counts its design implies, and
// every over-limit spec fails naming the limit, what it uses and what the generation has.
#include <gtest/gtest.h>

#include "models/aggregation/tofino-resources.h"

namespace hfsim {
namespace {

const ResourceLine* Find(const std::vector<ResourceLine>& lines, const std::string& limit) {
  for (const ResourceLine& line : lines) {
    if (line.limit == limit) return &line;
  }
  return nullptr;
}

// `values` values per packet fit and `values` + 2 (the next even count) break `limit`.
void ExpectLargestThatFits(AggregationSwitchSpec spec, uint32_t values, const std::string& limit) {
  spec.values_per_packet = values;
  EXPECT_TRUE(CheckTofinoFit(spec).empty()) << values;
  spec.values_per_packet = values + 2;
  EXPECT_NE(Find(CheckTofinoFit(spec), limit), nullptr) << values + 2;
}

TEST(TofinoResources, SwitchMlDefaultsFitTofino1) {
  const AggregationSwitchSpec spec;
  EXPECT_TRUE(CheckTofinoFit(spec).empty());
  const TofinoResourceUse use = ComputeTofinoResources(spec);
  // 64 values in pair registers: 32 ALUs ("register processors"), and the max exponent's ALU
  // beside them: 9 stages after 3 control ones, as p4c's back end places the program.
  EXPECT_EQ(use.value_alus, 32u);
  EXPECT_EQ(use.control_stages, 3u);
  EXPECT_EQ(use.value_stages, 9u);
  EXPECT_EQ(use.mau_stages, 12u);
  EXPECT_EQ(use.control_alus, 4u);  // bitmap per set, counter, max exponent
  EXPECT_EQ(use.harvest_passes_per_slot, 1u);
  EXPECT_EQ(use.register_entries, 1024u);  // 512 slots x 2 sets
  EXPECT_EQ(use.phv_value_bits, 2048u);           // 64 words of 32 bits
  // 64 x 8 + 96 x 16 + 64 x 32 normal bits, less 256 for headers and metadata.
  EXPECT_EQ(use.phv_value_capacity_bits, 3840u);
  EXPECT_EQ(use.bitmap_bits, 8u);
  EXPECT_EQ(use.parsed_header_bytes, 58u);
  EXPECT_EQ(ComputeTofinoResources([] {
              AggregationSwitchSpec t2;
              t2.generation = TofinoGeneration::kTofino2;
              return t2;
            }())
                .harvest_passes_per_slot,
            0u);
}

TEST(TofinoResources, ThirtyThreeWorkersExceedTheBitmap) {
  AggregationSwitchSpec spec;
  spec.workers = 33;
  spec.value_bits = 25;
  const auto violations = CheckTofinoFit(spec);
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0].limit, "bitmap_bits");
  EXPECT_EQ(violations[0].spec_key, "workers");
  EXPECT_EQ(violations[0].used, 33u);
  EXPECT_EQ(violations[0].available, 32u);
  EXPECT_NE(violations[0].explanation.find("Tofino-1"), std::string::npos);
  spec.workers = 32;
  EXPECT_TRUE(CheckTofinoFit(spec).empty());
}

TEST(TofinoResources, TooManyValuesPerPacketNeedTooManyStages) {
  AggregationSwitchSpec spec;
  spec.values_per_packet = 96;
  const auto violations = CheckTofinoFit(spec);
  const ResourceLine* stages = Find(violations, "value_stages");
  ASSERT_NE(stages, nullptr);
  EXPECT_EQ(stages->used, 13u);  // 48 pair registers and the exponent, 4 a stage
  EXPECT_EQ(stages->available, 9u);
  EXPECT_EQ(stages->explanation,
            "values_per_packet 96 needs 13 register stages (48 pair registers and the max "
            "exponent, 4 a stage) and Tofino-1 has 9 after 3 control stages (at most 70 values "
            "per packet)");
  // 96 x 32 = 3072 bits fit Tofino-1's 3840 of normal containers.
  EXPECT_EQ(Find(violations, "phv_value_bits"), nullptr);
  // Tofino-2's 20 stages hold the values, but its 48 x 8 + 72 x 16 + 48 x 32 - 256 = 2816 bits
  // do not: p4c's PHV allocation failed on this program and succeeded on 88 values
  // (docs/p4.md §3).
  spec.generation = TofinoGeneration::kTofino2;
  const auto t2 = CheckTofinoFit(spec);
  EXPECT_EQ(Find(t2, "value_stages"), nullptr);
  ASSERT_EQ(t2.size(), 1u);
  EXPECT_EQ(t2[0].limit, "phv_value_bits");
  EXPECT_EQ(t2[0].used, 3072u);
  EXPECT_EQ(t2[0].available, 2816u);
  EXPECT_NE(t2[0].explanation.find("(at most 88 values per packet)"), std::string::npos)
      << t2[0].explanation;
  ExpectLargestThatFits(spec, 88, "phv_value_bits");
}

TEST(TofinoResources, FixedScaleLeavesTheExponentsAluToValues) {
  // Without the max-exponent register Tofino-1's 9 value stages hold 36 pair registers: 72
  // values compile with p4c's back end in 12 stages (docs/p4.md §3); 74 need a 13th.
  AggregationSwitchSpec spec;
  spec.scheme = FixedPointScheme::kFixedScale;
  spec.overflow = OverflowBehaviour::kSaturate;
  ExpectLargestThatFits(spec, 72, "value_stages");
  spec.values_per_packet = 72;
  EXPECT_EQ(ComputeTofinoResources(spec).mau_stages, 12u);
  // With it, 70 is the most: 35 pair registers and the exponent fill the 9 stages.
  spec.scheme = FixedPointScheme::kBlockExponent;
  ExpectLargestThatFits(spec, 70, "value_stages");
}

TEST(TofinoResources, FewValuesStillTakeARoutingStage) {
  // A completed slot becomes a result after the counter and is routed a stage later: p4c placed
  // the 8-value parameter-server program of docs/p4.md §3 in 5 stages, one value stage among them.
  AggregationSwitchSpec spec;
  spec.mode = AggregationMode::kParameterServer;
  spec.scheme = FixedPointScheme::kFixedScale;
  spec.overflow = OverflowBehaviour::kSaturate;
  spec.generation = TofinoGeneration::kTofino2;
  spec.values_per_packet = 8;
  const TofinoResourceUse use = ComputeTofinoResources(spec);
  EXPECT_EQ(use.value_stages, 1u);
  EXPECT_EQ(use.routing_stages, 1u);
  EXPECT_EQ(use.mau_stages, 5u);
}

TEST(TofinoResources, OddValuesPerPacketDoNotFillPairs) {
  AggregationSwitchSpec spec;
  spec.values_per_packet = 63;
  const auto violations = CheckTofinoFit(spec);
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0].limit, "even_values_per_packet");
}

TEST(TofinoResources, TooManySlotsForThePairRegister) {
  AggregationSwitchSpec spec;
  spec.aggregator_slots = 8192;  // 2 x 8192 = 16384: exactly fits
  EXPECT_TRUE(CheckTofinoFit(spec).empty());
  spec.aggregator_slots = 8193;
  auto violations = CheckTofinoFit(spec);
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0].limit, "register_entries");
  EXPECT_EQ(violations[0].used, 16386u);
  EXPECT_EQ(violations[0].available, 16384u);
  spec.shadow_copies = false;  // one set: 8193 entries
  EXPECT_TRUE(CheckTofinoFit(spec).empty());
}

TEST(TofinoResources, ValueWidthThatCouldOverflowAWrappingSum) {
  AggregationSwitchSpec spec;
  spec.scheme = FixedPointScheme::kFixedScale;
  spec.workers = 9;      // ceil(log2 9) = 4: at most 27 bits
  spec.value_bits = 28;  // 9 * (2^28 - 1) > 2^31 - 1
  auto violations = CheckTofinoFit(spec);
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0].limit, "int32_sum_bits");
  EXPECT_EQ(violations[0].spec_key, "value_bits");
  EXPECT_EQ(violations[0].used, 33u);
  EXPECT_EQ(violations[0].available, 32u);
  spec.value_bits = 27;  // 9 * (2^27 - 1) < 2^31
  EXPECT_TRUE(CheckTofinoFit(spec).empty());
  spec.value_bits = 31;
  spec.overflow = OverflowBehaviour::kSaturate;  // saturating adds cannot overflow
  EXPECT_TRUE(CheckTofinoFit(spec).empty());
  // Block exponents bound every value by INT32_MAX / W, whatever value_bits says.
  spec.scheme = FixedPointScheme::kBlockExponent;
  spec.overflow = OverflowBehaviour::kWrap;
  EXPECT_TRUE(CheckTofinoFit(spec).empty());
}

TEST(TofinoResources, TableListsEveryLimitWithItsNumbers) {
  const auto table = TofinoResourceTable(AggregationSwitchSpec{});
  for (const char* limit : {"bitmap_bits", "even_values_per_packet", "value_stages",
                            "stateful_alus", "register_entries", "register_actions",
                            "sram_blocks_per_stage", "phv_value_bits", "egress_parse_depth_bytes",
                            "int32_sum_bits"}) {
    EXPECT_NE(Find(table, limit), nullptr) << limit;
  }
  // 4 pair registers of 1024 x 64 bits: 1 data block + 1 spare each.
  EXPECT_EQ(Find(table, "sram_blocks_per_stage")->used, 8u);
}

}  // namespace
}  // namespace hfsim
