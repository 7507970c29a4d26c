// The closed-form profile (models/schedule-profile-closed-form.h) against the walked schedule
// (ProfileSchedule of BuildSchedule), field by field and bit for bit.
#include "models/schedule-profile-closed-form.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "models/schedule.h"

namespace hfsim {
namespace {

const CollectiveKind kKinds[] = {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter,
                                 CollectiveKind::kAllGather, CollectiveKind::kAllToAll};
const CollectiveAlgorithm kClosedAlgorithms[] = {CollectiveAlgorithm::kRing,
                                                 CollectiveAlgorithm::kDirect,
                                                 CollectiveAlgorithm::kHalvingDoubling};
const DimensionKind kDimensions[] = {DimensionKind::kRing, DimensionKind::kFullyConnected,
                                     DimensionKind::kSwitch};

// Exact comparison: the closed form adds the same per-step terms in the same order as
// ProfileSchedule, so even the floating-point sums must agree to the last bit.
void ExpectSameProfile(const ScheduleProfile& closed, const ScheduleProfile& walked) {
  EXPECT_EQ(closed.steps, walked.steps);
  EXPECT_EQ(closed.messages, walked.messages);
  EXPECT_EQ(closed.latency_hops, walked.latency_hops);
  EXPECT_EQ(closed.bandwidth_coefficient, walked.bandwidth_coefficient);
  EXPECT_EQ(closed.reduction_coefficient, walked.reduction_coefficient);
  EXPECT_EQ(closed.traffic_coefficient, walked.traffic_coefficient);
  EXPECT_EQ(closed.link_bytes_coefficient, walked.link_bytes_coefficient);
  EXPECT_EQ(closed.received_messages, walked.received_messages);
  EXPECT_EQ(closed.sent_bytes_coefficient, walked.sent_bytes_coefficient);
  EXPECT_EQ(closed.received_bytes_coefficient, walked.received_bytes_coefficient);
}

// Checks every supported (kind, algorithm, dimension kind) on `n` peers; returns how many.
int CheckAllTuples(uint32_t n) {
  int checked = 0;
  for (CollectiveKind kind : kKinds) {
    for (CollectiveAlgorithm algorithm : kClosedAlgorithms) {
      if (UnsupportedReason(kind, algorithm, n)) continue;
      const Schedule schedule = BuildSchedule(kind, algorithm, n);
      for (DimensionKind dimension : kDimensions) {
        SCOPED_TRACE(std::string(ToString(kind)) + " " + std::string(ToString(algorithm)) + " on " +
                     std::to_string(n) + " dimension kind " +
                     std::to_string(static_cast<int>(dimension)));
        const std::optional<ScheduleProfile> closed =
            ClosedFormProfile(kind, algorithm, n, dimension);
        EXPECT_TRUE(closed.has_value());
        if (!closed) continue;
        ExpectSameProfile(*closed, ProfileSchedule(schedule, dimension));
        ++checked;
      }
    }
  }
  return checked;
}

TEST(ClosedFormProfileTest, MatchesTheWalkedScheduleUpTo64) {
  // Every size: odd and even, 2 (both neighbours are one peer), 3 (the smallest physical ring
  // with two directions), powers of two (where halving-doubling runs too).
  int checked = 0;
  for (uint32_t n = 2; n <= 64; ++n) checked += CheckAllTuples(n);
  // Per size: ring and direct run all 4 kinds on 3 dimension kinds (24); halving-doubling 3
  // kinds on 3 dimension kinds (9) on the 6 powers of two 2..64.
  EXPECT_EQ(checked, 63 * 24 + 6 * 9);
}

TEST(ClosedFormProfileTest, MatchesTheWalkedScheduleOnLargerGroups) {
  for (uint32_t n : {100u, 127u, 128u, 256u, 1000u}) CheckAllTuples(n);
}

TEST(ClosedFormProfileTest, TreeAndInNetworkHaveNoClosedForm) {
  // The double binary tree is walked (its O(n) transfers); in_network has no schedule at all.
  EXPECT_FALSE(ClosedFormProfile(CollectiveKind::kAllReduce, CollectiveAlgorithm::kDoubleBinaryTree,
                                 8, DimensionKind::kSwitch));
  EXPECT_FALSE(ClosedFormProfile(CollectiveKind::kAllReduce, CollectiveAlgorithm::kInNetwork, 8,
                                 DimensionKind::kSwitch));
}

TEST(ClosedFormProfileTest, RefusesWhatTheScheduleBuilderRefuses) {
  EXPECT_THROW(ClosedFormProfile(CollectiveKind::kAllReduce, CollectiveAlgorithm::kHalvingDoubling,
                                 6, DimensionKind::kSwitch),
               std::invalid_argument);
  EXPECT_THROW(ClosedFormProfile(CollectiveKind::kAllToAll, CollectiveAlgorithm::kHalvingDoubling,
                                 8, DimensionKind::kSwitch),
               std::invalid_argument);
  EXPECT_THROW(ClosedFormProfile(CollectiveKind::kAllGather, CollectiveAlgorithm::kDirect, 1,
                                 DimensionKind::kRing),
               std::invalid_argument);
}

}  // namespace
}  // namespace hfsim
