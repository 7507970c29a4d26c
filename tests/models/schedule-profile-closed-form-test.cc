// The closed-form profile (models/schedule-profile-closed-form.h) against the walked schedule
// (ProfileSchedule of BuildSchedule), field by field and bit for bit; and CachedProfile, which
// uses it, on the largest groups a scenario allows.
#include "models/schedule-profile-closed-form.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <vector>

#include "models/schedule.h"
#include "topologies/kinds/clos.h"

// Counts the bytes this test program allocates, so that a test can show a profile of a large
// group costs no O(n^2) memory (a wall-clock limit would be flaky on a shared machine).
namespace {
std::atomic<uint64_t> g_allocated_bytes{0};
}  // namespace

void* operator new(std::size_t size) {
  g_allocated_bytes += size;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

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

// Clos: the closed form against the walk (NPU links as on a Switch, each leaf's traffic to other
// leaves spread over its spines), bit for bit, on every divisor k of n with 2 leaves or more,
// spines 1, 2 and k, and oversubscription 1 and 3.
TEST(ClosedFormProfileTest, ClosMatchesTheWalkedSchedule) {
  int checked = 0;
  for (uint32_t n = 2; n <= 48; ++n) {
    for (uint32_t k = 1; k <= n / 2; ++k) {
      if (n % k != 0) continue;
      for (uint32_t spines : {1u, 2u, k}) {
        if (spines > k) continue;
        for (double r : {1.0, 3.0}) {
          const Dimension dim = ClosDimension(n, {k, spines, r});
          for (CollectiveKind kind : kKinds) {
            for (CollectiveAlgorithm algorithm : kClosedAlgorithms) {
              if (UnsupportedReason(kind, algorithm, n)) continue;
              SCOPED_TRACE(std::string(ToString(kind)) + " " + std::string(ToString(algorithm)) +
                           " on Clos " + std::to_string(n) + " k " + std::to_string(k) + " S " +
                           std::to_string(spines) + " r " + std::to_string(r));
              const auto closed = ClosedFormProfile(kind, algorithm, dim);
              ASSERT_TRUE(closed.has_value());
              ExpectSameProfile(*closed, ProfileSchedule(BuildSchedule(kind, algorithm, n), dim));
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

// A direct all-to-all on a Clos of 16 NPUs, 4 per leaf, 2 spines, oversubscribed 2:1, by hand.
// Each NPU sends one block (of 16) to each of 15 peers: its up-link carries 15 blocks. Each leaf
// sends 4 x 12 = 48 blocks to other leaves, 24 on each of its 2 up-links, which carry
// 4 / (2 x 2) = 1 of an NPU's bandwidth: 24 blocks at full rate, so the spines bound the step.
TEST(ClosedFormProfileTest, ClosAllToAllIsBoundByTheSpinesByHand) {
  Dimension dim = ClosDimension(16, {4, 2, 2.0});
  const auto profile =
      ClosedFormProfile(CollectiveKind::kAllToAll, CollectiveAlgorithm::kDirect, dim);
  ASSERT_TRUE(profile);
  EXPECT_EQ(profile->steps, 1u);
  EXPECT_EQ(profile->latency_hops, 4.0);
  EXPECT_DOUBLE_EQ(profile->bandwidth_coefficient, 24.0 / 16.0);
  // Without oversubscription the up-links carry 2 x an NPU's bandwidth: 24 blocks take the time
  // of 12, and the NPU's own 15 bound the step, as on a Switch.
  dim = ClosDimension(16, {4, 2, 1.0});
  EXPECT_DOUBLE_EQ(ClosedFormProfile(CollectiveKind::kAllToAll, CollectiveAlgorithm::kDirect, dim)
                       ->bandwidth_coefficient,
                   ClosedFormProfile(CollectiveKind::kAllToAll, CollectiveAlgorithm::kDirect, 16,
                                     DimensionKind::kSwitch)
                       ->bandwidth_coefficient);
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
  // CachedProfile still refuses in_network as BuildSchedule did (no peer-to-peer schedule).
  EXPECT_THROW(CachedProfile(CollectiveKind::kAllReduce, CollectiveAlgorithm::kInNetwork, 8,
                             DimensionKind::kSwitch),
               std::invalid_argument);
}

// The largest groups the scenario allows (docs/scenario.md §3.2): a direct all-to-all there has
// 4.3 billion (Ring 65,536) or 268 million (Switch 16,384) transfers, which cannot be walked.
TEST(ClosedFormProfileTest, LargestGroupsNeedNoQuadraticMemory) {
  struct Case {
    uint32_t n;
    DimensionKind dimension;
  };
  for (const Case& c : {Case{65536, DimensionKind::kRing}, Case{16384, DimensionKind::kSwitch}}) {
    for (CollectiveKind kind : kKinds) {
      for (CollectiveAlgorithm algorithm : kClosedAlgorithms) {
        if (UnsupportedReason(kind, algorithm, c.n)) continue;
        const uint64_t before = g_allocated_bytes;
        const ScheduleProfile& p = CachedProfile(kind, algorithm, c.n, c.dimension);
        // A cache entry and its lookup: far below even one byte per NPU.
        EXPECT_LT(g_allocated_bytes - before, 4096u) << ToString(kind) << ToString(algorithm);
        EXPECT_GT(p.steps, 0u);
      }
    }
  }
  const double n = 16384;
  const ScheduleProfile& a2a = CachedProfile(
      CollectiveKind::kAllToAll, CollectiveAlgorithm::kDirect, 16384, DimensionKind::kSwitch);
  // The up-link carries the n-1 blocks of S/n; every route is 2 hops.
  EXPECT_EQ(a2a.bandwidth_coefficient, (n - 1) / n);
  EXPECT_EQ(a2a.latency_hops, 2.0);
  EXPECT_EQ(a2a.messages, n - 1);
  // On the ring of 65,536 a clockwise link lies on 1 + 2 + ... + 32768 routes of S/n, at half of
  // B; the farthest peer is 32768 hops away.
  const ScheduleProfile& ring = CachedProfile(
      CollectiveKind::kAllToAll, CollectiveAlgorithm::kDirect, 65536, DimensionKind::kRing);
  EXPECT_EQ(ring.bandwidth_coefficient, 32768.0 * 32769 / 2 / 65536 / 0.5);
  EXPECT_EQ(ring.latency_hops, 32768.0);
}

TEST(ClosedFormProfileTest, LargestTreeIsWalkedInLinearMemory) {
  // The double binary tree has no closed form: CachedProfile walks its 4(n-1) transfers. On the
  // 65,536-ring that stays linear: under 1 KiB allocated per NPU, all told.
  const uint32_t n = 65536;
  const uint64_t before = g_allocated_bytes;
  const ScheduleProfile& p = CachedProfile(
      CollectiveKind::kAllReduce, CollectiveAlgorithm::kDoubleBinaryTree, n, DimensionKind::kRing);
  EXPECT_LT(g_allocated_bytes - before, 1024u * n);
  EXPECT_EQ(p.traffic_coefficient, 2.0 * (n - 1) / n);
}

}  // namespace
}  // namespace hfsim
