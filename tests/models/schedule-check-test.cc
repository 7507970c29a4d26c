// Every schedule computes its collective (models/schedule-check.h replays them symbolically), and
// the checker catches the mistakes it is there for.
#include "models/schedule-check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "models/schedule.h"
#include "tests/models/transfer-printer.h"

namespace hfsim {
namespace {

using ::testing::HasSubstr;

const CollectiveKind kKinds[] = {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter,
                                 CollectiveKind::kAllGather, CollectiveKind::kAllToAll};
const CollectiveAlgorithm kAlgorithms[] = {CollectiveAlgorithm::kRing, CollectiveAlgorithm::kDirect,
                                           CollectiveAlgorithm::kHalvingDoubling,
                                           CollectiveAlgorithm::kDoubleBinaryTree};

using Combination = std::tuple<CollectiveKind, CollectiveAlgorithm, uint32_t>;

class EveryScheduleTest : public ::testing::TestWithParam<Combination> {};

// Every supported (kind, algorithm, peers) for the group sizes the brief names plus a few more.
std::vector<Combination> SupportedCombinations() {
  std::vector<Combination> out;
  for (uint32_t n : {2u, 3u, 4u, 5u, 6u, 7u, 8u, 16u, 32u}) {
    for (CollectiveKind kind : kKinds) {
      for (CollectiveAlgorithm algorithm : kAlgorithms) {
        if (!UnsupportedReason(kind, algorithm, n)) out.emplace_back(kind, algorithm, n);
      }
    }
  }
  return out;
}

uint32_t Log2(uint32_t n) {
  uint32_t bits = 0;
  while ((1u << bits) < n) ++bits;
  return bits;
}

// Steps each algorithm takes (docs/scenario.md §10.2); 0 for trees, whose step count (twice the
// height) tree-schedule-test.cc checks for n = 8.
uint32_t ExpectedSteps(CollectiveKind kind, CollectiveAlgorithm algorithm, uint32_t n) {
  const bool both = kind == CollectiveKind::kAllReduce;
  switch (algorithm) {
    case CollectiveAlgorithm::kRing:
      return (both ? 2 : 1) * (n - 1);
    case CollectiveAlgorithm::kDirect:
      return both ? 2 : 1;
    case CollectiveAlgorithm::kHalvingDoubling:
      return (both ? 2 : 1) * Log2(n);
    case CollectiveAlgorithm::kDoubleBinaryTree:
    case CollectiveAlgorithm::kInNetwork:  // no schedule (not in kAlgorithms)
      return 0;  // not a closed form
  }
  return 0;
}

TEST_P(EveryScheduleTest, ComputesItsCollective) {
  const auto [kind, algorithm, n] = GetParam();
  const Schedule schedule = BuildSchedule(kind, algorithm, n);
  EXPECT_EQ(schedule.kind, kind);
  EXPECT_EQ(schedule.algorithm, algorithm);
  EXPECT_EQ(schedule.peers, n);
  EXPECT_EQ(CheckSchedule(schedule), std::nullopt);
  if (const uint32_t steps = ExpectedSteps(kind, algorithm, n)) {
    EXPECT_EQ(schedule.steps.size(), steps);
  }
  for (const Step& step : schedule.steps) EXPECT_FALSE(step.transfers.empty());
}

INSTANTIATE_TEST_SUITE_P(AllCombinations, EveryScheduleTest,
                         ::testing::ValuesIn(SupportedCombinations()), [](const auto& info) {
                           return std::string(ToString(std::get<0>(info.param))) + "_" +
                                  std::string(ToString(std::get<1>(info.param))) + "_" +
                                  std::to_string(std::get<2>(info.param));
                         });

TEST(ScheduleShapeTest, RingReduceScatterFirstStep) {
  // n = 4: clockwise rank i sends block (i-1) mod 4 to i+1; counter-clockwise block
  // 4 + (i+1) mod 4 to i-1. Each block is 1/8 of the buffer.
  const Schedule rs = BuildSchedule(CollectiveKind::kReduceScatter, CollectiveAlgorithm::kRing, 4);
  EXPECT_EQ(rs.block_count, 8u);
  const std::vector<Transfer> expected{{0, 1, 3, 1, true}, {0, 3, 5, 1, true}, {1, 2, 0, 1, true},
                                       {1, 0, 6, 1, true}, {2, 3, 1, 1, true}, {2, 1, 7, 1, true},
                                       {3, 0, 2, 1, true}, {3, 2, 4, 1, true}};
  EXPECT_EQ(rs.steps[0].transfers, expected);
}

TEST(ScheduleShapeTest, ShardConventions) {
  EXPECT_EQ(ShardBlocks(CollectiveAlgorithm::kRing, 5, 2), (std::vector<uint32_t>{2, 7}));
  EXPECT_EQ(ShardBlocks(CollectiveAlgorithm::kDirect, 5, 2), (std::vector<uint32_t>{2}));
  // Halving-doubling: bit-reversed rank. n = 8: 1 = 001b -> 100b = 4, 3 = 011b -> 110b = 6.
  EXPECT_EQ(ShardBlocks(CollectiveAlgorithm::kHalvingDoubling, 8, 1), (std::vector<uint32_t>{4}));
  EXPECT_EQ(ShardBlocks(CollectiveAlgorithm::kHalvingDoubling, 8, 3), (std::vector<uint32_t>{6}));
  EXPECT_EQ(ShardBlocks(CollectiveAlgorithm::kHalvingDoubling, 8, 7), (std::vector<uint32_t>{7}));
  EXPECT_THROW(ShardBlocks(CollectiveAlgorithm::kDoubleBinaryTree, 8, 0), std::invalid_argument);
}

TEST(ScheduleShapeTest, HalvingDoublingPartnersAndSizes) {
  // n = 8 reduce-scatter: partners at distance 1, 2, 4 with 4, 2, 1 of the 8 blocks.
  const Schedule rs =
      BuildSchedule(CollectiveKind::kReduceScatter, CollectiveAlgorithm::kHalvingDoubling, 8);
  ASSERT_EQ(rs.steps.size(), 3u);
  const uint32_t distance[] = {1, 2, 4};
  const uint32_t blocks[] = {4, 2, 1};
  for (uint32_t s = 0; s < 3; ++s) {
    ASSERT_EQ(rs.steps[s].transfers.size(), 8u);
    for (const Transfer& t : rs.steps[s].transfers) {
      EXPECT_EQ(t.src ^ t.dst, distance[s]);
      EXPECT_EQ(t.block_count, blocks[s]);
      EXPECT_TRUE(t.reduce);
    }
  }
  // Rank 0 keeps the lower half each time: sends [4,8), then [2,4), then block 1 (to rank 4).
  EXPECT_EQ(rs.steps[0].transfers[0], (Transfer{0, 1, 4, 4, true}));
  EXPECT_EQ(rs.steps[1].transfers[0], (Transfer{0, 2, 2, 2, true}));
  EXPECT_EQ(rs.steps[2].transfers[0], (Transfer{0, 4, 1, 1, true}));
  // The all-gather mirrors it: distance 4 with one block first.
  const Schedule ag =
      BuildSchedule(CollectiveKind::kAllGather, CollectiveAlgorithm::kHalvingDoubling, 8);
  EXPECT_EQ(ag.steps[0].transfers[1], (Transfer{1, 5, 4, 1, false}));
  EXPECT_EQ(ag.steps[2].transfers[1], (Transfer{1, 0, 4, 4, false}));
}

TEST(ScheduleShapeTest, DirectAllToAll) {
  const Schedule a2a = BuildSchedule(CollectiveKind::kAllToAll, CollectiveAlgorithm::kDirect, 3);
  const std::vector<Transfer> expected{{0, 1, 1, 1, false}, {0, 2, 2, 1, false},
                                       {1, 0, 0, 1, false}, {1, 2, 2, 1, false},
                                       {2, 0, 0, 1, false}, {2, 1, 1, 1, false}};
  ASSERT_EQ(a2a.steps.size(), 1u);
  EXPECT_EQ(a2a.steps[0].transfers, expected);
}

// --- The checker catches broken schedules. ---------------------------------------------------

TEST(ScheduleCheckTest, ReductionTwiceIsCaught) {
  // Replaying the first reduce-scatter step once more adds every contribution a second time.
  Schedule s = BuildSchedule(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, 4);
  s.steps.insert(s.steps.begin() + 1, s.steps[0]);
  const auto error = CheckSchedule(s);
  ASSERT_TRUE(error.has_value());
  EXPECT_THAT(*error, HasSubstr("step 1: rank 0 -> rank 1, block 3"));
  EXPECT_THAT(*error, HasSubstr("aggregated twice"));
}

TEST(ScheduleCheckTest, MissingStepIsCaught) {
  Schedule s = BuildSchedule(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, 4);
  s.steps.pop_back();
  const auto error = CheckSchedule(s);
  ASSERT_TRUE(error.has_value());
  EXPECT_THAT(*error, HasSubstr("at the end"));
}

TEST(ScheduleCheckTest, ReduceScatterMustEndOnTheShard) {
  // Dropping the last step of a direct-like reduce: rank 3 never gets rank 0's part of block 3.
  Schedule s = BuildSchedule(CollectiveKind::kReduceScatter, CollectiveAlgorithm::kDirect, 4);
  auto& transfers = s.steps[0].transfers;
  std::erase(transfers, Transfer{0, 3, 3, 1, true});
  EXPECT_EQ(CheckSchedule(s),
            "direct reduce_scatter on 4 peers: at the end, rank 3's shard block 3 "
            "lacks the contribution of rank 0");
}

TEST(ScheduleCheckTest, TransfersOfOneStepReadTheStateBeforeIt) {
  // 0 -> 1 and 1 -> 2 in the same step: rank 2 gets rank 1's block as it was before the step,
  // without rank 0's contribution.
  Schedule s{CollectiveKind::kReduceScatter, CollectiveAlgorithm::kDirect, 3, 3, {}};
  s.steps.push_back(Step{{{0, 1, 2, 1, true},
                          {1, 2, 2, 1, true},  // block 2 chained in one step
                          {1, 0, 0, 1, true},
                          {2, 0, 0, 1, true},
                          {0, 1, 1, 1, true},
                          {2, 1, 1, 1, true}}});
  EXPECT_EQ(CheckSchedule(s),
            "direct reduce_scatter on 3 peers: at the end, rank 2's shard block 2 "
            "lacks the contribution of rank 0");
}

TEST(ScheduleCheckTest, SenderMustHoldTheBlock) {
  Schedule s = BuildSchedule(CollectiveKind::kAllGather, CollectiveAlgorithm::kDirect, 4);
  s.steps[0].transfers[0].first_block = 2;  // rank 0 sends block 2 that only rank 2 owns
  EXPECT_EQ(CheckSchedule(s),
            "direct all_gather on 4 peers: step 0: rank 0 -> rank 1, block 2: "
            "the sender holds nothing for this block");
}

TEST(ScheduleCheckTest, GatherMustNotReduceOrRepeat) {
  Schedule reducing = BuildSchedule(CollectiveKind::kAllGather, CollectiveAlgorithm::kRing, 3);
  reducing.steps[1].transfers[2].reduce = true;
  ASSERT_TRUE(CheckSchedule(reducing).has_value());
  EXPECT_THAT(*CheckSchedule(reducing), HasSubstr("must not reduce"));

  Schedule repeated = BuildSchedule(CollectiveKind::kAllGather, CollectiveAlgorithm::kDirect, 3);
  repeated.steps.push_back(repeated.steps[0]);
  ASSERT_TRUE(CheckSchedule(repeated).has_value());
  EXPECT_THAT(*CheckSchedule(repeated), HasSubstr("step 1: rank 0 -> rank 1, block 0: the receiver "
                                                  "already holds this block"));
}

TEST(ScheduleCheckTest, BroadcastMustNotLoseContributions) {
  // Two peers: rank 0 stores its unreduced block 0 over rank 1's copy, losing rank 1's data.
  Schedule s{CollectiveKind::kAllReduce, CollectiveAlgorithm::kDirect, 2, 1, {}};
  s.steps.push_back(Step{{{0, 1, 0, 1, false}}});
  EXPECT_EQ(CheckSchedule(s),
            "direct all_reduce on 2 peers: step 0: rank 0 -> rank 1, block 0: "
            "storing it would lose the contribution of rank 1");
}

TEST(ScheduleCheckTest, AllToAllDeliversOnce) {
  Schedule s = BuildSchedule(CollectiveKind::kAllToAll, CollectiveAlgorithm::kRing, 4);
  s.steps.push_back(s.steps[0]);
  ASSERT_TRUE(CheckSchedule(s).has_value());
  EXPECT_THAT(*CheckSchedule(s), HasSubstr("already has rank 0's data"));
  Schedule short_one = BuildSchedule(CollectiveKind::kAllToAll, CollectiveAlgorithm::kRing, 4);
  short_one.steps.pop_back();  // step k = 3: rank i -> i+3 never happens
  EXPECT_EQ(
      CheckSchedule(short_one),
      "ring all_to_all on 4 peers: at the end, rank 0 has not received its block from rank 1");
}

TEST(ScheduleCheckTest, MalformedTransfers) {
  Schedule s = BuildSchedule(CollectiveKind::kAllReduce, CollectiveAlgorithm::kDirect, 3);
  s.steps[0].transfers[0].dst = 0;
  EXPECT_THAT(*CheckSchedule(s), HasSubstr("not between two different peers"));
  s = BuildSchedule(CollectiveKind::kAllReduce, CollectiveAlgorithm::kDirect, 3);
  s.steps[0].transfers[0].block_count = 3;
  EXPECT_THAT(*CheckSchedule(s), HasSubstr("sends blocks [1, 4) of a buffer of 3 blocks"));
}

}  // namespace
}  // namespace hfsim

namespace hfsim {
namespace {

// LargestTransfer, which the packet engine's message-size check uses instead of building large
// schedules, is the built schedule's block count and its largest transfer, for every supported
// combination on groups of 2 to 33.
TEST(LargestTransfer, MatchesTheBuiltSchedule) {
  for (const CollectiveKind kind : kKinds) {
    for (const CollectiveAlgorithm algorithm : kAlgorithms) {
      for (uint32_t peers = 2; peers <= 33; ++peers) {
        if (UnsupportedReason(kind, algorithm, peers)) continue;
        const Schedule schedule = BuildSchedule(kind, algorithm, peers);
        uint32_t largest = 0;
        for (const Step& step : schedule.steps) {
          for (const Transfer& transfer : step.transfers) {
            largest = std::max(largest, transfer.block_count);
          }
        }
        const TransferBlocks blocks = LargestTransfer(kind, algorithm, peers);
        EXPECT_EQ(blocks.block_count, schedule.block_count)
            << ToString(kind) << " " << ToString(algorithm) << " " << peers;
        EXPECT_EQ(blocks.largest, largest)
            << ToString(kind) << " " << ToString(algorithm) << " " << peers;
      }
    }
  }
}

}  // namespace
}  // namespace hfsim
