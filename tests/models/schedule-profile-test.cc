// Closed-form costs of schedules on one dimension (models/schedule-profile.h), checked against
// the closed forms of docs/scenario.md §10.2-10.3 and against loads worked out by hand.
#include "models/schedule-profile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "models/schedule.h"
#include "topologies/dimension-links.h"

namespace hfsim {
namespace {

constexpr double kEps = 1e-12;

ScheduleProfile Profile(CollectiveKind kind, CollectiveAlgorithm algorithm, uint32_t n,
                        DimensionKind dimension) {
  return ProfileSchedule(BuildSchedule(kind, algorithm, n), dimension);
}

double Log2(uint32_t n) {
  double bits = 0;
  while ((1u << static_cast<uint32_t>(bits)) < n) ++bits;
  return bits;
}

const CollectiveKind kAR = CollectiveKind::kAllReduce;
const CollectiveKind kRS = CollectiveKind::kReduceScatter;
const CollectiveKind kAG = CollectiveKind::kAllGather;
const CollectiveKind kA2A = CollectiveKind::kAllToAll;
const CollectiveAlgorithm kRingAlg = CollectiveAlgorithm::kRing;
const CollectiveAlgorithm kDirect = CollectiveAlgorithm::kDirect;
const CollectiveAlgorithm kHD = CollectiveAlgorithm::kHalvingDoubling;
const CollectiveAlgorithm kDBT = CollectiveAlgorithm::kDoubleBinaryTree;
const DimensionKind kRing = DimensionKind::kRing;
const DimensionKind kFC = DimensionKind::kFullyConnected;
const DimensionKind kSwitch = DimensionKind::kSwitch;

// --- docs/scenario.md §10.3 on Switch and FullyConnected dimensions --------------------------

TEST(ScheduleProfileTest, RingAllReduceOnSwitch) {
  for (uint32_t n : {2u, 3u, 4u, 5u, 8u, 16u}) {
    // Each step a rank sends S/(2n) each way: S/n on its up-link and S/n on a down-link.
    const ScheduleProfile p = Profile(kAR, kRingAlg, n, kSwitch);
    EXPECT_EQ(p.steps, 2 * (n - 1));
    EXPECT_NEAR(p.bandwidth_coefficient, 2.0 * (n - 1) / n, kEps) << n;
    EXPECT_NEAR(p.latency_hops, 2.0 * 2 * (n - 1), kEps);  // 2 hops per step through the switch
    EXPECT_NEAR(p.traffic_coefficient, 2.0 * (n - 1) / n, kEps);
    EXPECT_NEAR(p.link_bytes_coefficient, 2 * n * 2.0 * (n - 1) / n, kEps);  // up + down
    EXPECT_NEAR(p.reduction_coefficient, (n - 1.0) / n, kEps);  // S/n reduced per RS step
  }
}

TEST(ScheduleProfileTest, DirectAllReduceOnFullyConnected) {
  for (uint32_t n : {2u, 3u, 4u, 8u, 16u}) {
    // Reduce-scatter step: link i->j carries S/n at 1/(n-1) of B: (n-1)/n. Same for all-gather.
    const ScheduleProfile p = Profile(kAR, kDirect, n, kFC);
    EXPECT_EQ(p.steps, 2u);
    EXPECT_NEAR(p.bandwidth_coefficient, 2.0 * (n - 1) / n, kEps) << n;
    EXPECT_NEAR(p.latency_hops, 2.0, kEps);
    EXPECT_NEAR(p.traffic_coefficient, 2.0 * (n - 1) / n, kEps);
    // All n-1 blocks of S/n arrive at once: (n-1)/n reduced at each NPU in the one RS step.
    EXPECT_NEAR(p.reduction_coefficient, (n - 1.0) / n, kEps);
  }
}

TEST(ScheduleProfileTest, DirectAllReduceOnSwitch) {
  // The up-link carries the n-1 blocks of S/n at full bandwidth.
  const ScheduleProfile p = Profile(kAR, kDirect, 8, kSwitch);
  EXPECT_NEAR(p.bandwidth_coefficient, 2.0 * 7 / 8, kEps);
  EXPECT_NEAR(p.latency_hops, 4.0, kEps);
}

TEST(ScheduleProfileTest, HalvingDoublingAllReduceOnSwitch) {
  for (uint32_t n : {2u, 4u, 8u, 16u, 64u}) {
    // S/2 + S/4 + ... + S/n = (n-1)/n per phase.
    const ScheduleProfile p = Profile(kAR, kHD, n, kSwitch);
    EXPECT_EQ(p.steps, 2 * Log2(n));
    EXPECT_NEAR(p.bandwidth_coefficient, 2.0 * (n - 1) / n, kEps) << n;
    EXPECT_NEAR(p.latency_hops, 2 * 2 * Log2(n), kEps);
    EXPECT_NEAR(p.traffic_coefficient, 2.0 * (n - 1) / n, kEps);
    EXPECT_NEAR(p.reduction_coefficient, (n - 1.0) / n, kEps);
  }
}

TEST(ScheduleProfileTest, ReduceScatterAndAllGatherMoveHalfAnAllReduce) {
  for (uint32_t n : {2u, 4u, 8u, 16u}) {
    for (CollectiveAlgorithm algorithm : {kRingAlg, kDirect, kHD}) {
      for (CollectiveKind kind : {kRS, kAG}) {
        const ScheduleProfile p = Profile(kind, algorithm, n, kSwitch);
        EXPECT_NEAR(p.bandwidth_coefficient, (n - 1.0) / n, kEps) << ToString(algorithm) << n;
        EXPECT_NEAR(p.traffic_coefficient, (n - 1.0) / n, kEps);
        EXPECT_NEAR(p.reduction_coefficient, kind == kRS ? (n - 1.0) / n : 0.0, kEps);
      }
    }
    EXPECT_EQ(Profile(kRS, kRingAlg, n, kSwitch).steps, n - 1);
    EXPECT_NEAR(Profile(kAG, kRingAlg, n, kSwitch).latency_hops, 2.0 * (n - 1), kEps);
    EXPECT_NEAR(Profile(kAG, kRingAlg, n, kFC).latency_hops, 1.0 * (n - 1), kEps);
  }
}

TEST(ScheduleProfileTest, AllToAll) {
  for (uint32_t n : {2u, 3u, 8u, 16u}) {
    // Every NPU sends S/n to each of n-1 peers.
    for (CollectiveAlgorithm algorithm : {kRingAlg, kDirect}) {
      for (DimensionKind dim : {kSwitch, kFC}) {
        const ScheduleProfile p = Profile(kA2A, algorithm, n, dim);
        EXPECT_NEAR(p.traffic_coefficient, (n - 1.0) / n, kEps);
        EXPECT_NEAR(p.reduction_coefficient, 0.0, kEps);
      }
    }
    EXPECT_NEAR(Profile(kA2A, kDirect, n, kSwitch).bandwidth_coefficient, (n - 1.0) / n, kEps);
    EXPECT_NEAR(Profile(kA2A, kDirect, n, kFC).bandwidth_coefficient, (n - 1.0) / n, kEps);
    // The ring algorithm sends one block per step: on a Switch the up-link is always busy, on a
    // FullyConnected dimension only 1 of the n-1 links is: (n-1) steps of S/n at 1/(n-1) of B.
    EXPECT_NEAR(Profile(kA2A, kRingAlg, n, kSwitch).bandwidth_coefficient, (n - 1.0) / n, kEps);
    EXPECT_NEAR(Profile(kA2A, kRingAlg, n, kFC).bandwidth_coefficient, (n - 1.0) * (n - 1.0) / n,
                kEps);
    // Latency: once for direct, once per step for the ring algorithm.
    EXPECT_NEAR(Profile(kA2A, kDirect, n, kFC).latency_hops, 1.0, kEps);
    EXPECT_NEAR(Profile(kA2A, kRingAlg, n, kFC).latency_hops, n - 1.0, kEps);
    EXPECT_NEAR(Profile(kA2A, kRingAlg, n, kSwitch).latency_hops, 2.0 * (n - 1), kEps);
  }
}

// --- Physical effects -----------------------------------------------------------------------

TEST(ScheduleProfileTest, RingAlgorithmOnPhysicalRingUsesBothDirections) {
  for (uint32_t n : {2u, 3u, 4u, 8u, 16u}) {
    // n >= 3: link i->i+1 carries S/(2n) per step at half of B: S/n per step.
    // n == 2: both blocks of S/4 share the single 0->1 link at full B: S/2 per step.
    const ScheduleProfile ar = Profile(kAR, kRingAlg, n, kRing);
    EXPECT_NEAR(ar.bandwidth_coefficient, 2.0 * (n - 1) / n, kEps) << n;
    EXPECT_NEAR(ar.latency_hops, 2.0 * (n - 1), kEps);  // neighbours only: 1 hop per step
    EXPECT_NEAR(ar.link_bytes_coefficient, n * 2.0 * (n - 1) / n, kEps);
    EXPECT_NEAR(Profile(kRS, kRingAlg, n, kRing).bandwidth_coefficient, (n - 1.0) / n, kEps);
  }
}

TEST(ScheduleProfileTest, RingAlgorithmWastesAFullyConnectedDimension) {
  for (uint32_t n : {3u, 4u, 8u, 16u}) {
    // Ring: link i->i+1 carries S/(2n) per step at 1/(n-1) of B, for 2(n-1) steps:
    //   2(n-1) * (n-1)/(2n) = (n-1)^2/n.  Direct: 2(n-1)/n.  Ratio (n-1)/2: the bidirectional
    // ring keeps 2 of the n-1 links busy (a one-way ring would be n-1 times slower).
    const double ring = Profile(kAR, kRingAlg, n, kFC).bandwidth_coefficient;
    const double direct = Profile(kAR, kDirect, n, kFC).bandwidth_coefficient;
    EXPECT_NEAR(ring, (n - 1.0) * (n - 1.0) / n, kEps);
    EXPECT_NEAR(ring / direct, (n - 1.0) / 2, 1e-9) << n;
  }
}

TEST(ScheduleProfileTest, DirectAllToAllOnRingOfEight) {
  // Shortest routes, clockwise on ties: distances 1..4 go clockwise with 1..4 hops, 5..7 go
  // counter-clockwise with 3..1 hops. A clockwise link lies on the routes of 1 + 2 + 3 + 4 = 10
  // transfers of S/8 (10S/8), a counter-clockwise one on 1 + 2 + 3 = 6 (6S/8). Busiest 10S/8 at
  // half of B: 2.5 S/B.
  const ScheduleProfile p = Profile(kA2A, kDirect, 8, kRing);
  EXPECT_EQ(p.steps, 1u);
  EXPECT_NEAR(p.bandwidth_coefficient, 2.5, kEps);
  EXPECT_NEAR(p.latency_hops, 4.0, kEps);
  // Each source: hops 1+2+3+4+3+2+1 = 16 blocks of S/8 over links; 8 sources: 16 S.
  EXPECT_NEAR(p.link_bytes_coefficient, 16.0, kEps);
  EXPECT_NEAR(p.traffic_coefficient, 7.0 / 8, kEps);
}

TEST(ScheduleProfileTest, HalvingDoublingOnRingPaysHops) {
  // n = 8, reduce-scatter partners at distance 1, 2, 4 hops; the all-gather back at 4, 2, 1:
  // 14 hop latencies in 6 steps (against 6 on FullyConnected). Bandwidth: each step's busiest
  // link carries S/2 at half of B (step xor 1: one S/2 transfer per used link; xor 2: two S/4
  // routes share link 1->2; xor 4: all eight S/8 routes go clockwise 4 hops, 4 per link): 6 S/B.
  const ScheduleProfile ring = Profile(kAR, kHD, 8, kRing);
  EXPECT_EQ(ring.steps, 6u);
  EXPECT_NEAR(ring.latency_hops, 14.0, kEps);
  EXPECT_NEAR(ring.bandwidth_coefficient, 6.0, kEps);
  // Every step moves S/2 byte-hops per rank: 8 * 0.5 * 6 steps = 24.
  EXPECT_NEAR(ring.link_bytes_coefficient, 24.0, kEps);
  EXPECT_NEAR(Profile(kAR, kHD, 8, kFC).latency_hops, 6.0, kEps);
  EXPECT_NEAR(Profile(kAR, kHD, 16, kRing).latency_hops, 2.0 * (1 + 2 + 4 + 8), kEps);
}

TEST(ScheduleProfileTest, DoubleBinaryTreeOnSwitch) {
  // n = 8 (trees drawn in tree-schedule.cc), halves of S/2 on a Switch:
  //   reduce 0: rank 2 receives S/2 from 1 and from 3 on its down-link: S; reduces S.
  //   reduce 1: 2,6 -> 4 (tree 0) and 1,5 -> 3 (tree 1): S into 4 and into 3.
  //   reduce 2: 4 -> 0, 3 -> 7: S/2.
  //   broadcast 0: 0 -> 4, 7 -> 3: S/2;  1: 4 -> 2,6: S on 4's up-link;  2: leaves: S.
  // Bandwidth 1 + 1 + 0.5 + 0.5 + 1 + 1 = 5; reductions 1 + 1 + 0.5 = 2.5; 6 steps of 2 hops.
  // Traffic: 2 trees x 7 edges x 2 phases x S/2 = 14 S over 8 NPUs = 1.75 = 2(n-1)/n.
  const ScheduleProfile p = Profile(kAR, kDBT, 8, kSwitch);
  EXPECT_EQ(p.steps, 6u);
  EXPECT_NEAR(p.bandwidth_coefficient, 5.0, kEps);
  EXPECT_NEAR(p.reduction_coefficient, 2.5, kEps);
  EXPECT_NEAR(p.latency_hops, 12.0, kEps);
  EXPECT_NEAR(p.traffic_coefficient, 1.75, kEps);
}

TEST(ScheduleProfileTest, RingArcsAgreeWithHopByHopRoutes) {
  // The profile adds ring routes as arcs (difference arrays); walking each route link by link
  // must give the same busiest link in every step.
  for (uint32_t n : {3u, 4u, 5u, 7u, 8u, 12u, 16u}) {
    const DimensionLinks links(kRing, n);
    for (CollectiveKind kind : {kAR, kRS, kAG, kA2A}) {
      for (CollectiveAlgorithm algorithm : {kRingAlg, kDirect, kHD, kDBT}) {
        if (UnsupportedReason(kind, algorithm, n)) continue;
        const Schedule schedule = BuildSchedule(kind, algorithm, n);
        double expected = 0;
        for (const Step& step : schedule.steps) {
          std::vector<uint64_t> load(links.LinkIdCount(), 0);
          for (const Transfer& t : step.transfers) {
            links.ForEachLinkOnRoute(t.src, t.dst,
                                     [&](uint32_t link) { load[link] += t.block_count; });
          }
          expected += *std::max_element(load.begin(), load.end()) /
                      static_cast<double>(schedule.block_count) / links.LinkBandwidthFraction();
        }
        EXPECT_NEAR(ProfileSchedule(schedule, kRing).bandwidth_coefficient, expected, 1e-9)
            << ToString(kind) << " " << ToString(algorithm) << " n " << n;
      }
    }
  }
}

TEST(ScheduleProfileTest, DirectAllToAllOnRingOf1024IsFast) {
  // About a million transfers in one step; difference arrays keep it linear. Closed form as for
  // n = 8: a clockwise link carries 1 + 2 + ... + 512 = 131328 blocks of S/1024, at half of B.
  const ScheduleProfile p = Profile(kA2A, kDirect, 1024, kRing);
  EXPECT_NEAR(p.bandwidth_coefficient, 131328.0 * 2 / 1024, 1e-9);
  EXPECT_NEAR(p.latency_hops, 512.0, kEps);
}

// --- Time and cache -------------------------------------------------------------------------

TEST(ScheduleProfileTest, TimeNsAddsFourTerms) {
  // Ring all-reduce on a Switch of 4: 6 steps, 12 hops, bandwidth 1.5, reduction 0.75.
  // S = 1e6 B, B = 50 B/ns, a = 500 ns, e = 100 ns, R = 200 B/ns:
  //   6*100 + 12*500 + 1.5*1e6/50 + 0.75*1e6/200 = 600 + 6000 + 30000 + 3750 = 40350 ns.
  const ScheduleProfile p = Profile(kAR, kRingAlg, 4, kSwitch);
  ASSERT_EQ(p.steps, 6u);
  EXPECT_NEAR(p.TimeNs(1e6, 50.0, 500.0, 100.0, 200.0), 40350.0, 1e-6);
  EXPECT_NEAR(p.TimeNs(1e6, 50.0, 500.0, 100.0, 0.0), 36600.0, 1e-6);  // free reductions

  ScheduleProfile handmade;
  handmade.steps = 3;
  handmade.latency_hops = 4;
  handmade.bandwidth_coefficient = 0.25;
  handmade.reduction_coefficient = 2;
  // 3*10 + 4*7 + 0.25*800/2 + 2*800/400 = 30 + 28 + 100 + 4 = 162.
  EXPECT_DOUBLE_EQ(handmade.TimeNs(800, 2, 7, 10, 400), 162.0);
}

TEST(ScheduleProfileTest, CachedProfileMatchesAndIsStable) {
  const ScheduleProfile& first = CachedProfile(kAR, kRingAlg, 6, kRing);
  const ScheduleProfile direct = Profile(kAR, kRingAlg, 6, kRing);
  EXPECT_EQ(first.steps, direct.steps);
  EXPECT_DOUBLE_EQ(first.bandwidth_coefficient, direct.bandwidth_coefficient);
  // Many other entries later, the reference is the same object.
  for (uint32_t n = 2; n < 40; ++n) CachedProfile(kAG, kDirect, n, kFC);
  EXPECT_EQ(&CachedProfile(kAR, kRingAlg, 6, kRing), &first);
}

TEST(ScheduleProfileTest, CachedProfileFromManyThreads) {
  std::vector<std::thread> threads;
  std::vector<const ScheduleProfile*> seen(8 * 30, nullptr);
  for (uint32_t t = 0; t < 8; ++t) {
    threads.emplace_back([t, &seen] {
      for (uint32_t i = 0; i < 30; ++i) {
        seen[t * 30 + i] = &CachedProfile(kRS, kRingAlg, 2 + i, kSwitch);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (uint32_t t = 1; t < 8; ++t) {
    for (uint32_t i = 0; i < 30; ++i) EXPECT_EQ(seen[t * 30 + i], seen[i]);
  }
  EXPECT_NEAR(seen[6]->bandwidth_coefficient, 7.0 / 8, kEps);  // n = 8
}

}  // namespace
}  // namespace hfsim

namespace hfsim {
namespace {

// Messages posted per NPU, summed over steps: the bidirectional ring sends 2 a step (n >= 3),
// direct sends to all n-1 peers in each of its steps, halving-doubling 1 a step.
TEST(ScheduleProfileMessages, CountsTheBusiestPosterPerStep) {
  for (uint32_t n : {3u, 4u, 8u}) {
    EXPECT_DOUBLE_EQ(CachedProfile(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, n,
                                   DimensionKind::kRing).messages, 2.0 * 2 * (n - 1)) << n;
    EXPECT_DOUBLE_EQ(CachedProfile(CollectiveKind::kAllReduce, CollectiveAlgorithm::kDirect, n,
                                   DimensionKind::kSwitch).messages, 2.0 * (n - 1)) << n;
  }
  EXPECT_DOUBLE_EQ(CachedProfile(CollectiveKind::kAllReduce, CollectiveAlgorithm::kHalvingDoubling,
                                 8, DimensionKind::kSwitch).messages, 6.0);
  // TimeNs charges them: 12 messages x 10 ns on top of the rest.
  const ScheduleProfile& ring = CachedProfile(CollectiveKind::kAllReduce,
                                              CollectiveAlgorithm::kRing, 4, DimensionKind::kRing);
  EXPECT_DOUBLE_EQ(ring.TimeNs(1000, 10, 0, 0, 0, 10.0) - ring.TimeNs(1000, 10, 0, 0, 0, 0.0), 120.0);
}

}  // namespace
}  // namespace hfsim
