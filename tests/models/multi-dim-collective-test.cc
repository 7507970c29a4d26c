// Splitting a collective over several dimensions into per-dimension stages
// (models/multi-dim-collective.h), and the traffic each dimension carries (docs/scenario.md §10.1).
#include "models/multi-dim-collective.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "models/schedule-profile.h"

namespace hfsim {
namespace {

constexpr double kEps = 1e-12;
const CollectiveAlgorithm kRingAlg = CollectiveAlgorithm::kRing;
const CollectiveAlgorithm kDirect = CollectiveAlgorithm::kDirect;
const CollectiveAlgorithm kHD = CollectiveAlgorithm::kHalvingDoubling;
const CollectiveKind kAR = CollectiveKind::kAllReduce;
const CollectiveKind kRS = CollectiveKind::kReduceScatter;
const CollectiveKind kAG = CollectiveKind::kAllGather;
const CollectiveKind kA2A = CollectiveKind::kAllToAll;

Topology FourD() {
  return Topology({{DimensionKind::kRing, 4, 100, 50},
                   {DimensionKind::kFullyConnected, 8, 100, 500},
                   {DimensionKind::kRing, 4, 50, 1000},
                   {DimensionKind::kSwitch, 32, 25, 2000}});
}

// Bytes per NPU sent into each topology dimension, as a fraction of S.
std::vector<double> TrafficPerDimension(const std::vector<CollectiveStage>& stages,
                                        const Topology& topology) {
  std::vector<double> traffic(topology.DimensionCount(), 0.0);
  for (const CollectiveStage& stage : stages) {
    const Dimension& dim = topology.Dim(stage.dimension);
    traffic[stage.dimension] +=
        stage.buffer_fraction *
        CachedProfile(stage.kind, stage.algorithm, dim.size, dim.kind).traffic_coefficient;
  }
  return traffic;
}

void ExpectStages(const std::vector<CollectiveStage>& actual,
                  const std::vector<CollectiveStage>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_EQ(actual[i].dimension, expected[i].dimension) << "stage " << i;
    EXPECT_EQ(actual[i].kind, expected[i].kind) << "stage " << i;
    EXPECT_EQ(actual[i].algorithm, expected[i].algorithm) << "stage " << i;
    EXPECT_NEAR(actual[i].buffer_fraction, expected[i].buffer_fraction, kEps) << "stage " << i;
  }
}

TEST(MultiDimCollectiveTest, HierarchicalAllReduceOnFourDimensions) {
  const Topology topology = FourD();
  const std::vector<CollectiveAlgorithm> algorithms{kRingAlg, kDirect, kRingAlg, kHD};
  const auto stages =
      ComposeStages(kAR, MultiDimScheme::kHierarchical, {0, 1, 2, 3}, topology, algorithms);
  // m_0 = 1, m_1 = 1/4, m_2 = 1/32, m_3 = 1/128.
  ExpectStages(stages, {{0, kRS, kRingAlg, 1.0},
                        {1, kRS, kDirect, 1.0 / 4},
                        {2, kRS, kRingAlg, 1.0 / 32},
                        {3, kAR, kHD, 1.0 / 128},
                        {2, kAG, kRingAlg, 1.0 / 32},
                        {1, kAG, kDirect, 1.0 / 4},
                        {0, kAG, kRingAlg, 1.0}});
  // 2 m_d (n_d - 1)/n_d: 2*3/4 = 1.5; 2/4*7/8 = 7/16; 2/32*3/4 = 3/64; 2/128*31/32 = 31/2048.
  const std::vector<double> traffic = TrafficPerDimension(stages, topology);
  EXPECT_NEAR(traffic[0], 1.5, kEps);
  EXPECT_NEAR(traffic[1], 7.0 / 16, kEps);
  EXPECT_NEAR(traffic[2], 3.0 / 64, kEps);
  EXPECT_NEAR(traffic[3], 31.0 / 2048, kEps);
}

TEST(MultiDimCollectiveTest, HierarchicalAllReduceOnThreeDimensionsInAnyOrder) {
  const Topology topology({{DimensionKind::kSwitch, 2, 100, 50},
                           {DimensionKind::kRing, 8, 100, 50},
                           {DimensionKind::kFullyConnected, 4, 100, 50}});
  const std::vector<CollectiveAlgorithm> algorithms{kDirect, kRingAlg, kDirect};
  // Walk the dimensions as [2, 1, 0]: m = 1, 1/4, 1/32.
  const auto stages =
      ComposeStages(kAR, MultiDimScheme::kHierarchical, {2, 1, 0}, topology, algorithms);
  ExpectStages(stages, {{2, kRS, kDirect, 1.0},
                        {1, kRS, kRingAlg, 1.0 / 4},
                        {0, kAR, kDirect, 1.0 / 32},
                        {1, kAG, kRingAlg, 1.0 / 4},
                        {2, kAG, kDirect, 1.0}});
  const std::vector<double> traffic = TrafficPerDimension(stages, topology);
  EXPECT_NEAR(traffic[2], 2.0 * 3 / 4, kEps);
  EXPECT_NEAR(traffic[1], 2.0 / 4 * 7 / 8, kEps);
  EXPECT_NEAR(traffic[0], 2.0 / 32 * 1 / 2, kEps);
}

TEST(MultiDimCollectiveTest, NaiveAllReduceMovesTheWholeBufferEverywhere) {
  const Topology topology = FourD();
  const std::vector<CollectiveAlgorithm> algorithms{kRingAlg, kDirect, kRingAlg, kHD};
  const auto stages =
      ComposeStages(kAR, MultiDimScheme::kNaive, {0, 1, 2, 3}, topology, algorithms);
  ExpectStages(stages, {{0, kAR, kRingAlg, 1.0},
                        {1, kAR, kDirect, 1.0},
                        {2, kAR, kRingAlg, 1.0},
                        {3, kAR, kHD, 1.0}});
  const std::vector<double> traffic = TrafficPerDimension(stages, topology);
  const double sizes[] = {4, 8, 4, 32};
  for (uint32_t d = 0; d < 4; ++d) EXPECT_NEAR(traffic[d], 2 * (sizes[d] - 1) / sizes[d], kEps);
}

TEST(MultiDimCollectiveTest, ReduceScatterAllGatherAndAllToAll) {
  const Topology topology = FourD();
  const std::vector<CollectiveAlgorithm> algorithms(4, kRingAlg);
  ExpectStages(
      ComposeStages(kRS, MultiDimScheme::kHierarchical, {0, 1, 2}, topology, algorithms),
      {{0, kRS, kRingAlg, 1.0}, {1, kRS, kRingAlg, 1.0 / 4}, {2, kRS, kRingAlg, 1.0 / 32}});
  // The mirror: an all-gather's buffer is its output, S/32 after the last dimension's gather
  // starts from S/128.
  ExpectStages(
      ComposeStages(kAG, MultiDimScheme::kHierarchical, {0, 1, 2}, topology, algorithms),
      {{2, kAG, kRingAlg, 1.0 / 32}, {1, kAG, kRingAlg, 1.0 / 4}, {0, kAG, kRingAlg, 1.0}});
  ExpectStages(ComposeStages(kA2A, MultiDimScheme::kHierarchical, {1, 3}, topology, algorithms),
               {{1, kA2A, kRingAlg, 1.0}, {3, kA2A, kRingAlg, 1.0}});
  // Reduce-scatter has no naive form: the naive scheme shards it like the hierarchical one.
  ExpectStages(ComposeStages(kRS, MultiDimScheme::kNaive, {0, 1}, topology, algorithms),
               {{0, kRS, kRingAlg, 1.0}, {1, kRS, kRingAlg, 1.0 / 4}});
}

TEST(MultiDimCollectiveTest, SingleDimensionIsTheCollectiveItself) {
  const Topology topology = FourD();
  const std::vector<CollectiveAlgorithm> algorithms{kRingAlg, kDirect, kRingAlg, kHD};
  for (CollectiveKind kind : {kAR, kRS, kAG, kA2A}) {
    for (MultiDimScheme scheme : {MultiDimScheme::kHierarchical, MultiDimScheme::kNaive}) {
      ExpectStages(ComposeStages(kind, scheme, {1}, topology, algorithms),
                   {{1, kind, kDirect, 1.0}});
    }
  }
}

TEST(MultiDimCollectiveTest, BadArgumentsThrow) {
  const Topology topology = FourD();
  const std::vector<CollectiveAlgorithm> algorithms(4, kRingAlg);
  EXPECT_THROW(ComposeStages(kAR, MultiDimScheme::kHierarchical, {}, topology, algorithms),
               std::invalid_argument);
  EXPECT_THROW(ComposeStages(kAR, MultiDimScheme::kHierarchical, {4}, topology, algorithms),
               std::invalid_argument);
  EXPECT_THROW(ComposeStages(kAR, MultiDimScheme::kHierarchical, {0}, topology, {kRingAlg}),
               std::invalid_argument);
}

}  // namespace
}  // namespace hfsim
