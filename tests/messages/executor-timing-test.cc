// The executor's collective times against the analytical engine (CollectivePricer), on a fake
// network that moves bytes the way the analytical profile prices them (DimensionChannels).
// Where the fake matches the profile link for link, a single collective must take exactly the
// analytical time; with chunks the two engines pipeline differently, so only bounds hold.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "models/collective.h"
#include "sim/analytical/collective-pricing.h"
#include "tests/messages/executor-test-util.h"

namespace hfsim {
namespace {

using test::DefaultSpec;
using test::ExecutorHarness;
using test::FakeTransportOptions;

constexpr uint64_t kMiB = uint64_t{1} << 20;
// Divisible by 2n for n = 2..8 and by the products of the multi-dimensional tests' sizes, so that
// every block has the exact size the analytical engine's fractions give it.
constexpr uint64_t kSize = 105 * kMiB;

FakeTransportOptions ProfileLikeTransport(const std::vector<Dimension>& dims) {
  FakeTransportOptions options;
  options.channel = test::DimensionChannels(Topology(dims));
  return options;
}

double Analytical(const std::vector<Dimension>& dims, const CommunicationSpec& spec,
                  CollectiveKind kind, uint64_t size, const std::vector<uint32_t>& over) {
  return CollectivePricer(dims, spec).Price(kind, size, over).time_ns;
}

double Executed(const std::vector<Dimension>& dims, const CommunicationSpec& spec,
                CollectiveKind kind, uint64_t size, const std::vector<uint32_t>& over) {
  ExecutorHarness h(dims, spec, ProfileLikeTransport(dims), {.verify = true});
  const CollectiveId id = h.RunOne(kind, size, over);
  h.ExpectClean(id);
  return h.executor.Stats(id).DurationNs();
}

TEST(ExecutorTiming, SwitchRingAllReduceByHand) {
  // Switch of 4 at B = 50 GB/s, a = 100 ns, endpoint delay e = 10 ns, S = 4 MiB, ring.
  // 2(n-1) = 6 steps; in each, every NPU sends two blocks of S/(2n) = 524288 B, one after the
  // other on its up-link: 2 * 524288 / 50 = 20971.52 ns, plus 2 hops of 100 ns, plus e:
  //   6 * (10 + 200 + 20971.52) = 127089.12 ns.
  const std::vector<Dimension> dims{{DimensionKind::kSwitch, 4, 50.0, 100.0}};
  const Topology topology(dims);
  CommunicationSpec spec = DefaultSpec(topology);
  spec.endpoint_delay_ns = 10.0;
  const double executed = Executed(dims, spec, CollectiveKind::kAllReduce, 4 * kMiB, {0});
  EXPECT_NEAR(executed, 127089.12, 1e-6);
  EXPECT_NEAR(Analytical(dims, spec, CollectiveKind::kAllReduce, 4 * kMiB, {0}), 127089.12, 1e-6);
}

struct OneDimCase {
  DimensionKind dimension;
  uint32_t n;
  CollectiveKind kind;
  CollectiveAlgorithm algorithm;
  double reduction_Bpns;
};

std::string Name(const ::testing::TestParamInfo<OneDimCase>& info) {
  const OneDimCase& c = info.param;
  return std::string(ToString(c.dimension)) + std::to_string(c.n) + "_" +
         std::string(ToString(c.kind)) + "_" + std::string(ToString(c.algorithm)) +
         (c.reduction_Bpns > 0 ? "_reducing" : "");
}

// Every (dimension, algorithm, kind) for which DimensionChannels moves bytes exactly as the
// profile prices them (see its comment): with latency, endpoint delay and, off Switch
// dimensions, reduction cost, the executed time is the analytical time.
std::vector<OneDimCase> ExactCases() {
  using K = CollectiveKind;
  using A = CollectiveAlgorithm;
  std::vector<OneDimCase> cases;
  for (uint32_t n = 2; n <= 8; ++n) {
    for (K kind : {K::kAllReduce, K::kReduceScatter, K::kAllGather, K::kAllToAll}) {
      for (A algorithm : {A::kRing, A::kDirect, A::kHalvingDoubling, A::kDoubleBinaryTree}) {
        if (UnsupportedReason(kind, algorithm, n)) continue;
        const bool tree = algorithm == A::kDoubleBinaryTree;
        // The 2-peer ring sends both its blocks to the one peer over one link, so the first
        // block's reduction overlaps the second's transfer: faster than priced, not equal.
        const double reducing = (algorithm == A::kRing && n == 2) ? 0.0 : 30.0;
        // Switch: the up-link is the bottleneck for all but the tree (whose parents receive two
        // children's blocks in one step through one down-link).
        if (!tree || n == 2) cases.push_back({DimensionKind::kSwitch, n, kind, algorithm, 0.0});
        // FullyConnected: one link per pair, and every schedule here sends at most one
        // transfer per pair per step.
        if (!tree || n == 2) {
          cases.push_back({DimensionKind::kFullyConnected, n, kind, algorithm, 0.0});
          if (reducing > 0) {
            cases.push_back({DimensionKind::kFullyConnected, n, kind, algorithm, reducing});
          }
        }
        // Ring: exact for neighbour-only schedules.
        const bool neighbours = n <= 3 || (algorithm == A::kRing && kind != K::kAllToAll);
        if (neighbours && (!tree || n == 2)) {
          cases.push_back({DimensionKind::kRing, n, kind, algorithm, 0.0});
          if (reducing > 0) cases.push_back({DimensionKind::kRing, n, kind, algorithm, reducing});
        }
      }
    }
  }
  return cases;
}

class OneDimExact : public ::testing::TestWithParam<OneDimCase> {};

TEST_P(OneDimExact, EqualsTheAnalyticalPrice) {
  const OneDimCase& c = GetParam();
  const std::vector<Dimension> dims{{c.dimension, c.n, 80.0, 40.0}};
  const Topology topology(dims);
  CommunicationSpec spec = DefaultSpec(topology);
  spec.algorithms[static_cast<size_t>(c.kind)][0] = c.algorithm;
  spec.endpoint_delay_ns = 7.0;
  spec.reduction_Bpns = c.reduction_Bpns;
  const double analytical = Analytical(dims, spec, c.kind, kSize, {0});
  EXPECT_NEAR(Executed(dims, spec, c.kind, kSize, {0}), analytical, 1e-9 * analytical);
}

INSTANTIATE_TEST_SUITE_P(Cases, OneDimExact, ::testing::ValuesIn(ExactCases()), Name);

TEST(ExecutorTiming, SwitchReductionsOverlapTheSecondMessage) {
  // Switch of 4, ring reduce-scatter, R = B: per step an NPU's two messages arrive b/B apart
  // (its peers send them one after the other), so the first one's reduction runs while the
  // second is on the wire. The analytical step adds 2 b / R after the transfers; the executed
  // one only b / R: the executed time lies between the price without and with reductions.
  const std::vector<Dimension> dims{{DimensionKind::kSwitch, 4, 50.0, 0.0}};
  const Topology topology(dims);
  CommunicationSpec spec = DefaultSpec(topology);
  const double free = Analytical(dims, spec, CollectiveKind::kReduceScatter, kSize, {0});
  spec.reduction_Bpns = 50.0;
  const double priced = Analytical(dims, spec, CollectiveKind::kReduceScatter, kSize, {0});
  const double executed = Executed(dims, spec, CollectiveKind::kReduceScatter, kSize, {0});
  // b = S/8; 3 steps: free = 3 * 2b/B, priced = free + 3 * 2b/R, executed = free + 3 * b/R.
  const double b = kSize / 8.0;
  EXPECT_NEAR(free, 3 * 2 * b / 50.0, 1e-6);
  EXPECT_NEAR(priced, free + 3 * 2 * b / 50.0, 1e-6);
  EXPECT_NEAR(executed, free + 3 * b / 50.0, 1e-6);
}

// [Ring 4 @ 200 GB/s, a0 = 20 ns; FullyConnected 4 @ 150 GB/s, a1 = 50 ns; Switch 8 @ 50 GB/s,
// a2 = 500 ns]: ring on the Ring and Switch, direct on the FullyConnected dimension.
std::vector<Dimension> ThreeDims() {
  return {{DimensionKind::kRing, 4, 200.0, 20.0},
          {DimensionKind::kFullyConnected, 4, 150.0, 50.0},
          {DimensionKind::kSwitch, 8, 50.0, 500.0}};
}

TEST(ExecutorTiming, TwoDimHierarchicalAllReduceByHand) {
  // [Ring 4 @ 200, a0 = 20; Switch 8 @ 50, a1 = 500], S = 64 MiB, 1 chunk, the sum of stages:
  //   reduce-scatter on dim 0:   3 a0 + 3/4 S / 200           =  60 + 251658.24
  //   all-reduce on dim 1 of S/4: 14 * 2 a1 + 2 * 7/8 (S/4) / 50 = 14000 + 587202.56
  //   all-gather on dim 0:       as the reduce-scatter       =  60 + 251658.24
  //   total                                                    = 1104639.04 ns
  const std::vector<Dimension> dims{{DimensionKind::kRing, 4, 200.0, 20.0},
                                    {DimensionKind::kSwitch, 8, 50.0, 500.0}};
  const CommunicationSpec spec = DefaultSpec(Topology(dims));
  EXPECT_NEAR(Executed(dims, spec, CollectiveKind::kAllReduce, 64 * kMiB, {0, 1}), 1104639.04,
              1e-6);
}

TEST(ExecutorTiming, MultiDimOneChunkIsTheSumOfStages) {
  const std::vector<Dimension> dims = ThreeDims();
  for (MultiDimScheme scheme : {MultiDimScheme::kHierarchical, MultiDimScheme::kNaive}) {
    CommunicationSpec spec = DefaultSpec(Topology(dims), 1, scheme);
    spec.endpoint_delay_ns = 5.0;
    for (CollectiveKind kind :
         {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter, CollectiveKind::kAllGather}) {
      for (const std::vector<uint32_t>& over :
           {std::vector<uint32_t>{0, 1, 2}, {2, 0, 1}, {1, 2}, {0}}) {
        const double analytical = Analytical(dims, spec, kind, kSize, over);
        EXPECT_NEAR(Executed(dims, spec, kind, kSize, over), analytical, 1e-9 * analytical)
            << ToString(kind) << " over " << over.size() << " dimensions, starting at " << over[0];
      }
    }
    // All-to-all only where no route is longer than one link (not on the Ring of 4).
    const double analytical = Analytical(dims, spec, CollectiveKind::kAllToAll, kSize, {1, 2});
    EXPECT_NEAR(Executed(dims, spec, CollectiveKind::kAllToAll, kSize, {1, 2}), analytical,
                1e-9 * analytical);
  }
}

TEST(ExecutorTiming, ChunksPipelineBetweenOneChunkAndTheBottleneck) {
  // No latency, so the only costs are bytes on channels. The busiest dimension's channels must
  // carry all their bytes (analytically: dimension_busy_ns), which bounds the executed time from
  // below; pipelining chunks through the stages must not be slower than one chunk.
  std::vector<Dimension> dims = ThreeDims();
  for (Dimension& dim : dims) dim.latency_ns = 0.0;
  const std::vector<uint32_t> over{0, 1, 2};
  const double one_chunk =
      Executed(dims, DefaultSpec(Topology(dims), 1), CollectiveKind::kAllReduce, kSize, over);
  for (uint32_t chunks : {2u, 4u, 16u}) {
    const CommunicationSpec spec = DefaultSpec(Topology(dims), chunks);
    const CollectivePrice price =
        CollectivePricer(dims, spec).Price(CollectiveKind::kAllReduce, kSize, over);
    double bottleneck = 0.0;
    for (double busy : price.dimension_busy_ns) bottleneck = std::max(bottleneck, busy);
    const double executed = Executed(dims, spec, CollectiveKind::kAllReduce, kSize, over);
    EXPECT_LE(executed, one_chunk * (1 + 1e-9)) << chunks << " chunks";
    EXPECT_GE(executed, bottleneck * (1 - 1e-9)) << chunks << " chunks";
    RecordProperty("chunks_" + std::to_string(chunks),
                   "executed " + std::to_string(executed) + " ns, analytical " +
                       std::to_string(price.time_ns) + " ns, bottleneck " +
                       std::to_string(bottleneck) + " ns");
    std::cout << chunks << " chunks: executed " << executed << " ns, analytical pipeline "
              << price.time_ns << " ns, bottleneck " << bottleneck << " ns, 1 chunk " << one_chunk
              << " ns\n";
  }
}

}  // namespace
}  // namespace hfsim
