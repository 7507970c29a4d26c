// The cost model against LIBRA's table (docs/optimize.md §4.1), worked by hand.
#include <gtest/gtest.h>

#include "models/cost-model.h"

namespace hfsim {
namespace {

TEST(CostModel, LibraTable) {
  EXPECT_EQ(LibraPrices(CostClass::kChiplet).link_usd_per_GBps, 2.0);
  EXPECT_FALSE(LibraPrices(CostClass::kChiplet).switch_usd_per_GBps);
  EXPECT_EQ(LibraPrices(CostClass::kPackage).link_usd_per_GBps, 4.0);
  EXPECT_EQ(*LibraPrices(CostClass::kPackage).switch_usd_per_GBps, 13.0);
  EXPECT_EQ(*LibraPrices(CostClass::kNode).switch_usd_per_GBps, 13.0);
  EXPECT_EQ(LibraPrices(CostClass::kPod).link_usd_per_GBps, 7.8);
  EXPECT_EQ(*LibraPrices(CostClass::kPod).switch_usd_per_GBps, 18.0);
  EXPECT_EQ(*LibraPrices(CostClass::kPod).nic_usd_per_GBps, 31.6);
}

TEST(CostModel, UnitPricesByKind) {
  // Ring and FullyConnected pay the link only; a Switch pays link + switch + NIC.
  EXPECT_DOUBLE_EQ(UnitPriceOf(DimensionKind::kRing, LibraPrices(CostClass::kPod)).usd_per_GBps, 7.8);
  EXPECT_DOUBLE_EQ(UnitPriceOf(DimensionKind::kSwitch, LibraPrices(CostClass::kPod)).usd_per_GBps,
                   7.8 + 18.0 + 31.6);  // 57.4
  // No NIC below pod: 4 + 13.
  EXPECT_DOUBLE_EQ(
      UnitPriceOf(DimensionKind::kSwitch, LibraPrices(CostClass::kNode)).usd_per_GBps, 17.0);
  EXPECT_FALSE(UnitPriceOf(DimensionKind::kSwitch, LibraPrices(CostClass::kChiplet)).error.empty());
}

TEST(CostModel, DefaultClassesFromTheOutside) {
  EXPECT_EQ(DefaultCostClass(3, 4), CostClass::kPod);
  EXPECT_EQ(DefaultCostClass(2, 4), CostClass::kNode);
  EXPECT_EQ(DefaultCostClass(1, 4), CostClass::kPackage);
  EXPECT_EQ(DefaultCostClass(0, 4), CostClass::kChiplet);
  EXPECT_EQ(DefaultCostClass(0, 6), CostClass::kChiplet);
  EXPECT_EQ(DefaultCostClass(0, 1), CostClass::kPod);
}

TEST(CostModel, GptFabricEqualSplitByHand) {
  // [Ring 4 chiplet, FullyConnected 8 package, Ring 4 node, Switch 32 pod], 4096 NPUs,
  // 125 GB/s each: 4096 * 125 * (2 + 4 + 4 + 57.4) = 4096 * 125 * 67.4 = 34,508,800 $.
  const CostModel model({2.0, 4.0, 4.0, 57.4}, 4096);
  EXPECT_NEAR(model.CostUsd({125, 125, 125, 125}), 34508800.0, 1e-6);
  EXPECT_DOUBLE_EQ(model.MarginalUsdPerGBps(3), 4096 * 57.4);
}

}  // namespace
}  // namespace hfsim
