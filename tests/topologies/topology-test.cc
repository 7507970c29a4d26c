// Multi-dimensional addressing (topologies/topology.h): dimension 0 varies fastest.
#include "topologies/topology.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <vector>

namespace hfsim {
namespace {

Topology MakeTopology(const std::vector<uint32_t>& sizes) {
  std::vector<Dimension> dimensions;
  for (uint32_t size : sizes) dimensions.push_back(Dimension{DimensionKind::kRing, size, 1.0, 1.0});
  return Topology(dimensions);
}

TEST(TopologyTest, CountsAndStrides) {
  const Topology topology = MakeTopology({2, 4, 3});
  EXPECT_EQ(topology.DimensionCount(), 3u);
  EXPECT_EQ(topology.NpuCount(), 24u);
  EXPECT_EQ(topology.Stride(0), 1u);
  EXPECT_EQ(topology.Stride(1), 2u);
  EXPECT_EQ(topology.Stride(2), 8u);
  EXPECT_EQ(topology.GroupCount(0), 12u);
  EXPECT_EQ(topology.GroupCount(1), 6u);
  EXPECT_EQ(topology.GroupCount(2), 8u);
}

TEST(TopologyTest, CoordinatesRoundTripForEveryNpu) {
  const Topology topology = MakeTopology({2, 4, 3});
  std::set<std::vector<uint32_t>> seen;
  for (uint64_t npu = 0; npu < topology.NpuCount(); ++npu) {
    const std::vector<uint32_t> coordinates = topology.Coordinates(npu);
    ASSERT_EQ(coordinates.size(), 3u);
    for (uint32_t d = 0; d < 3; ++d) {
      EXPECT_LT(coordinates[d], topology.Dim(d).size);
      EXPECT_EQ(coordinates[d], topology.Coordinate(npu, d));
    }
    EXPECT_EQ(topology.NpuId(coordinates), npu);
    EXPECT_TRUE(seen.insert(coordinates).second) << "coordinates repeat at NPU " << npu;
  }
}

TEST(TopologyTest, WorkedExampleNpu13) {
  // 13 = 1 + 2 * (2 + 4 * 1): coordinates (1, 2, 1).
  const Topology topology = MakeTopology({2, 4, 3});
  EXPECT_EQ(topology.Coordinates(13), (std::vector<uint32_t>{1, 2, 1}));
  EXPECT_EQ(topology.NpuId({1, 2, 1}), 13u);
}

TEST(TopologyTest, PeerAlongChangesOnlyThatCoordinate) {
  const Topology topology = MakeTopology({2, 4, 3});
  // The header's example: the dimension-1 peers of NPU 13 are 9, 11, 13, 15.
  EXPECT_EQ(topology.PeerAlong(13, 1, 0), 9u);
  EXPECT_EQ(topology.PeerAlong(13, 1, 1), 11u);
  EXPECT_EQ(topology.PeerAlong(13, 1, 2), 13u);
  EXPECT_EQ(topology.PeerAlong(13, 1, 3), 15u);
  EXPECT_EQ(topology.PeerAlong(13, 0, 0), 12u);
  EXPECT_EQ(topology.PeerAlong(13, 2, 0), 5u);
  EXPECT_EQ(topology.PeerAlong(13, 2, 2), 21u);
  for (uint64_t npu = 0; npu < topology.NpuCount(); ++npu) {
    for (uint32_t d = 0; d < 3; ++d) {
      for (uint32_t index = 0; index < topology.Dim(d).size; ++index) {
        const uint64_t peer = topology.PeerAlong(npu, d, index);
        ASSERT_LT(peer, topology.NpuCount());
        std::vector<uint32_t> expected = topology.Coordinates(npu);
        expected[d] = index;
        EXPECT_EQ(topology.Coordinates(peer), expected);
      }
    }
  }
}

TEST(TopologyTest, GroupBaseEnumeratesEachGroupOnce) {
  for (const std::vector<uint32_t>& sizes :
       {std::vector<uint32_t>{2, 4, 3}, {5}, {3, 3}, {2, 3, 2, 4}}) {
    const Topology topology = MakeTopology(sizes);
    for (uint32_t d = 0; d < topology.DimensionCount(); ++d) {
      // Every NPU is in exactly one group of each dimension.
      std::vector<int> membership(topology.NpuCount(), 0);
      std::set<uint64_t> bases;
      for (uint64_t group = 0; group < topology.GroupCount(d); ++group) {
        const uint64_t base = topology.GroupBase(d, group);
        ASSERT_LT(base, topology.NpuCount());
        EXPECT_EQ(topology.Coordinate(base, d), 0u);
        EXPECT_TRUE(bases.insert(base).second);
        for (uint32_t k = 0; k < topology.Dim(d).size; ++k) {
          const uint64_t member = base + k * topology.Stride(d);
          EXPECT_EQ(member, topology.PeerAlong(base, d, k));
          ++membership[member];
        }
      }
      for (uint64_t npu = 0; npu < topology.NpuCount(); ++npu) {
        EXPECT_EQ(membership[npu], 1) << "NPU " << npu << " dimension " << d;
      }
    }
  }
}

TEST(TopologyTest, GroupBaseInIdOrder) {
  // [2, 4, 3], dimension 1: groups are (x, *, z) in id order -> bases 0, 1, 8, 9, 16, 17.
  const Topology topology = MakeTopology({2, 4, 3});
  const std::vector<uint64_t> expected{0, 1, 8, 9, 16, 17};
  for (uint64_t group = 0; group < expected.size(); ++group) {
    EXPECT_EQ(topology.GroupBase(1, group), expected[group]);
  }
}

TEST(TopologyTest, RejectsInvalidDimensions) {
  EXPECT_THROW(Topology(std::vector<Dimension>{}), std::invalid_argument);
  EXPECT_THROW(MakeTopology({4, 1}), std::invalid_argument);
  EXPECT_THROW(MakeTopology({0}), std::invalid_argument);
}

TEST(TopologyTest, RejectsNpuCountBeyond64Bits) {
  // 16 dimensions of 1024 would be 2^160 NPUs; the count must not wrap silently.
  EXPECT_THROW(MakeTopology(std::vector<uint32_t>(16, 1024)), std::invalid_argument);
  EXPECT_EQ(MakeTopology(std::vector<uint32_t>(6, 1024)).NpuCount(), uint64_t{1} << 60);
}

}  // namespace
}  // namespace hfsim
