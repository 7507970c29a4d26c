// Scenario spellings and supported combinations of collectives (models/collective.h).
#include <gtest/gtest.h>

#include <stdexcept>

#include "models/collective.h"
#include "models/schedule.h"

namespace hfsim {
namespace {

TEST(CollectiveNamesTest, KindsRoundTrip) {
  for (CollectiveKind kind : {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter,
                              CollectiveKind::kAllGather, CollectiveKind::kAllToAll}) {
    EXPECT_EQ(ParseCollectiveKind(ToString(kind)), kind);
  }
  EXPECT_EQ(ToString(CollectiveKind::kReduceScatter), "reduce_scatter");
  EXPECT_EQ(ParseCollectiveKind("all_to_all"), CollectiveKind::kAllToAll);
  EXPECT_EQ(ParseCollectiveKind("AllReduce"), std::nullopt);
  EXPECT_EQ(ParseCollectiveKind(""), std::nullopt);
}

TEST(CollectiveNamesTest, AlgorithmsRoundTrip) {
  for (CollectiveAlgorithm algorithm :
       {CollectiveAlgorithm::kRing, CollectiveAlgorithm::kDirect,
        CollectiveAlgorithm::kHalvingDoubling, CollectiveAlgorithm::kDoubleBinaryTree}) {
    EXPECT_EQ(ParseCollectiveAlgorithm(ToString(algorithm)), algorithm);
  }
  EXPECT_EQ(ToString(CollectiveAlgorithm::kHalvingDoubling), "halving_doubling");
  EXPECT_EQ(ParseCollectiveAlgorithm("double_binary_tree"), CollectiveAlgorithm::kDoubleBinaryTree);
  // ASTRA-sim's camel-case spelling is not ours.
  EXPECT_EQ(ParseCollectiveAlgorithm("halvingDoubling"), std::nullopt);
}

TEST(CollectiveNamesTest, SupportedCombinations) {
  for (uint32_t n : {2u, 3u, 6u, 8u}) {
    for (CollectiveKind kind : {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter,
                                CollectiveKind::kAllGather, CollectiveKind::kAllToAll}) {
      EXPECT_EQ(UnsupportedReason(kind, CollectiveAlgorithm::kRing, n), std::nullopt);
      EXPECT_EQ(UnsupportedReason(kind, CollectiveAlgorithm::kDirect, n), std::nullopt);
    }
  }
  EXPECT_EQ(
      UnsupportedReason(CollectiveKind::kAllGather, CollectiveAlgorithm::kHalvingDoubling, 16),
      std::nullopt);
  EXPECT_EQ(
      UnsupportedReason(CollectiveKind::kAllReduce, CollectiveAlgorithm::kDoubleBinaryTree, 7),
      std::nullopt);
}

TEST(CollectiveNamesTest, UnsupportedMessages) {
  EXPECT_EQ(UnsupportedReason(CollectiveKind::kAllReduce, CollectiveAlgorithm::kHalvingDoubling, 6),
            "halving_doubling needs a power-of-two number of peers, got 6 for all_reduce");
  EXPECT_EQ(UnsupportedReason(CollectiveKind::kAllToAll, CollectiveAlgorithm::kHalvingDoubling, 8),
            "halving_doubling cannot run all_to_all (on 8 peers); it supports all_reduce, "
            "reduce_scatter and all_gather");
  EXPECT_EQ(
      UnsupportedReason(CollectiveKind::kReduceScatter, CollectiveAlgorithm::kDoubleBinaryTree, 4),
      "double_binary_tree cannot run reduce_scatter (on 4 peers); it supports all_reduce only");
  EXPECT_EQ(UnsupportedReason(CollectiveKind::kAllGather, CollectiveAlgorithm::kDoubleBinaryTree, 4)
                .has_value(),
            true);
  EXPECT_EQ(UnsupportedReason(CollectiveKind::kAllToAll, CollectiveAlgorithm::kDoubleBinaryTree, 4)
                .has_value(),
            true);
  EXPECT_EQ(UnsupportedReason(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, 1),
            "ring all_reduce needs at least 2 peers, got 1");
  EXPECT_EQ(UnsupportedReason(CollectiveKind::kAllGather, CollectiveAlgorithm::kDirect, 0),
            "direct all_gather needs at least 2 peers, got 0");
}

TEST(CollectiveNamesTest, BuildScheduleRejectsUnsupported) {
  EXPECT_THROW(BuildSchedule(CollectiveKind::kAllReduce, CollectiveAlgorithm::kHalvingDoubling, 6),
               std::invalid_argument);
  EXPECT_THROW(BuildSchedule(CollectiveKind::kAllToAll, CollectiveAlgorithm::kDoubleBinaryTree, 8),
               std::invalid_argument);
  EXPECT_THROW(BuildSchedule(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, 1),
               std::invalid_argument);
}

}  // namespace
}  // namespace hfsim
