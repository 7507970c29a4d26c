// The physical fabric graph (topologies/fabric-graph.h): counts, id layout, link properties,
// link lookup and the size guard.
#include "topologies/fabric-graph.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <tuple>

#include "tests/topologies/fabric-test-topologies.h"

namespace hfsim {
namespace {

using namespace hfsim::testing;

struct Counts {
  uint64_t npus, switches, nodes, links;
};

void ExpectCounts(const Topology& topology, Counts expected) {
  const FabricGraph graph(topology);
  EXPECT_EQ(graph.NpuCount(), expected.npus);
  EXPECT_EQ(graph.SwitchCount(), expected.switches);
  EXPECT_EQ(graph.NodeCount(), expected.nodes);
  EXPECT_EQ(graph.LinkCount(), expected.links);
  EXPECT_EQ(boost::num_vertices(graph.Adjacency()), expected.nodes);
  EXPECT_EQ(boost::num_edges(graph.Adjacency()), expected.links);
}

TEST(FabricGraphTest, CountsOneDimension) {
  ExpectCounts(Topology({Ring(2)}), {2, 0, 2, 2});  // one link each way
  ExpectCounts(Topology({Ring(3)}), {3, 0, 3, 6});  // 2 per NPU
  ExpectCounts(Topology({Ring(8)}), {8, 0, 8, 16});
  ExpectCounts(Topology({FullyConnected(5)}), {5, 0, 5, 20});  // 5 * 4 ordered pairs
  ExpectCounts(Topology({Switch(8)}), {8, 1, 9, 16});          // up + down per NPU
}

TEST(FabricGraphTest, CountsTwoDimensions) {
  // [Ring 4, Switch 3]: 12 NPUs. Ring: 3 groups * 8 = 24. Switch: 4 groups -> 4 switches,
  // 4 * 6 = 24 links. 16 nodes, 48 links.
  ExpectCounts(Topology({Ring(4), Switch(3)}), {12, 4, 16, 48});
}

TEST(FabricGraphTest, CountsThreeDimensions) {
  // [Ring 2, FullyConnected 3, Switch 4]: 24 NPUs. Ring 2: 12 groups * 2 = 24.
  // FC 3: 8 groups * 3*2 = 48. Switch 4: 6 groups -> 6 switches, 6 * 8 = 48. 30 nodes, 120 links.
  ExpectCounts(Topology({Ring(2), FullyConnected(3), Switch(4)}), {24, 6, 30, 120});
}

TEST(FabricGraphTest, CountsFourDimensions) {
  // [Ring 4, FullyConnected 8, Ring 4, Switch 32]: 4*8*4*32 = 4096 NPUs.
  //   Ring 4:  4096/4 = 1024 groups * 8 links        =  8192 (2 per NPU)
  //   FC 8:    4096/8 =  512 groups * 8*7 links      = 28672 (7 per NPU)
  //   Ring 4:  1024 groups * 8                       =  8192
  //   Switch:  4096/32 = 128 groups -> 128 switches,
  //            128 * (32 up + 32 down)               =  8192 (2 per NPU)
  // Nodes 4096 + 128 = 4224; links 53248 = 13 per NPU.
  ExpectCounts(FourDimensional(), {4096, 128, 4224, 53248});
}

TEST(FabricGraphTest, WorkedExampleIdLayout) {
  // The example of fabric-graph.h: [Ring 4, Switch 2, Switch 3].
  const FabricGraph graph(Topology({Ring(4), Switch(2), Switch(3)}));
  EXPECT_EQ(graph.NpuCount(), 24u);
  EXPECT_EQ(graph.SwitchCount(), 20u);
  EXPECT_EQ(graph.LinkCount(), 144u);
  EXPECT_EQ(graph.GroupIndex(13, 1), 5u);
  EXPECT_EQ(graph.GroupIndex(13, 2), 5u);
  EXPECT_EQ(graph.SwitchVertex(1, 0), 24u);
  EXPECT_EQ(graph.SwitchVertex(1, 5), 29u);
  EXPECT_EQ(graph.SwitchVertex(2, 0), 36u);
  EXPECT_EQ(graph.SwitchVertex(2, 5), 41u);
  EXPECT_FALSE(graph.IsSwitch(23));
  EXPECT_TRUE(graph.IsSwitch(24));
  EXPECT_EQ(graph.SwitchDimension(29), 1u);
  EXPECT_EQ(graph.SwitchGroup(29), 5u);
  EXPECT_EQ(graph.SwitchDimension(41), 2u);
  EXPECT_EQ(graph.SwitchGroup(41), 5u);
  EXPECT_EQ(graph.SwitchDimension(43), 2u);
  EXPECT_THROW(graph.SwitchDimension(44), std::out_of_range);
  EXPECT_THROW(graph.SwitchDimension(13), std::out_of_range);
  // Switch 29 connects NPUs 9 and 13; switch 41 connects NPUs 5, 13, 21.
  std::set<VertexId> on_29;
  std::set<VertexId> on_41;
  for (const FabricLink& link : graph.Links()) {
    if (link.source == 29) on_29.insert(link.target);
    if (link.source == 41) on_41.insert(link.target);
  }
  EXPECT_EQ(on_29, (std::set<VertexId>{9, 13}));
  EXPECT_EQ(on_41, (std::set<VertexId>{5, 13, 21}));
  // Link ids are dimension-major: 48 per dimension here.
  EXPECT_EQ(graph.Link(0).dimension, 0u);
  EXPECT_EQ(graph.Link(47).dimension, 0u);
  EXPECT_EQ(graph.Link(48).dimension, 1u);
  EXPECT_EQ(graph.Link(96).dimension, 2u);
  EXPECT_EQ(graph.Link(143).dimension, 2u);
}

TEST(FabricGraphTest, LinksMatchDimensionLinks) {
  // Every link's endpoints are what dimension-links.h says its local id means.
  for (const Topology& topology : VariedTopologies()) {
    const FabricGraph graph(topology);
    std::set<std::tuple<uint32_t, uint64_t, uint32_t>> seen;  // (dimension, group, local)
    for (LinkId id = 0; id < graph.LinkCount(); ++id) {
      const FabricLink& link = graph.Link(id);
      const uint32_t d = link.dimension;
      const Dimension& dim = topology.Dim(d);
      const uint32_t n = dim.size;
      ASSERT_LT(d, topology.DimensionCount());
      ASSERT_LT(link.local_link, graph.LinksOf(d).LinkIdCount());
      const bool from_switch = graph.IsSwitch(link.source);
      const uint64_t group =
          from_switch ? graph.SwitchGroup(link.source) : graph.GroupIndex(link.source, d);
      EXPECT_TRUE(seen.insert({d, group, link.local_link}).second);
      EXPECT_EQ(graph.GroupLinkId(d, group, link.local_link), id);
      if (!from_switch) {
        EXPECT_EQ(graph.NpuLinkId(link.source, d, link.local_link), id);
      }
      auto index = [&](VertexId npu) { return topology.Coordinate(npu, d); };
      const uint32_t local = link.local_link;
      switch (dim.kind) {
        case DimensionKind::kRing:
          ASSERT_FALSE(from_switch);
          if (n == 2) {
            EXPECT_EQ(index(link.source), local);
            EXPECT_EQ(index(link.target), 1 - local);
          } else if (local < n) {
            EXPECT_EQ(index(link.source), local);
            EXPECT_EQ(index(link.target), (local + 1) % n);
          } else {
            EXPECT_EQ(index(link.source), local - n);
            EXPECT_EQ(index(link.target), (local - n + n - 1) % n);
          }
          break;
        case DimensionKind::kFullyConnected:
          EXPECT_EQ(index(link.source), local / n);
          EXPECT_EQ(index(link.target), local % n);
          EXPECT_NE(link.source, link.target);
          break;
        case DimensionKind::kSwitch:
          if (local < n) {
            EXPECT_EQ(index(link.source), local);
            EXPECT_EQ(link.target, graph.SwitchVertex(d, group));
          } else {
            EXPECT_EQ(link.source, graph.SwitchVertex(d, group));
            EXPECT_EQ(index(link.target), local - n);
          }
          break;
        default:  // other kinds' links are checked in their own tests (clos-test.cc, ...)
          ADD_FAILURE() << "no " << ToString(dim.kind) << " dimension in these topologies";
          break;
      }
      // The two ends of an NPU-to-NPU link are peers along d (all other coordinates equal).
      if (!graph.IsSwitch(link.source) && !graph.IsSwitch(link.target)) {
        EXPECT_EQ(topology.PeerAlong(link.source, d, index(link.target)), link.target);
      }
    }
  }
}

TEST(FabricGraphTest, LinkBandwidthAndLatency) {
  // Ring 4 splits 100 B/ns over 2 links; Ring 2 gives one link all of it; FC 8 splits 70 over 7;
  // Switch keeps all 25.
  const FabricGraph graph(Topology({Ring(4), Ring(2), FullyConnected(8), Switch(3)}));
  const double expected_Bpns[] = {50.0, 100.0, 10.0, 25.0};
  const double expected_ns[] = {500.0, 500.0, 700.0, 1000.0};
  for (const FabricLink& link : graph.Links()) {
    EXPECT_DOUBLE_EQ(link.bandwidth_Bpns, expected_Bpns[link.dimension]);
    EXPECT_DOUBLE_EQ(link.latency_ns, expected_ns[link.dimension]);
  }
}

TEST(FabricGraphTest, BoostEdgesCarryTheirLinkIds) {
  for (const Topology& topology : VariedTopologies()) {
    const FabricGraph graph(topology);
    const FabricAdjacency& adjacency = graph.Adjacency();
    std::vector<int> seen(graph.LinkCount(), 0);
    for (auto [it, end] = boost::edges(adjacency); it != end; ++it) {
      const LinkId id = adjacency[*it].link;
      ASSERT_LT(id, graph.LinkCount());
      ++seen[id];
      EXPECT_EQ(boost::source(*it, adjacency), graph.Link(id).source);
      EXPECT_EQ(boost::target(*it, adjacency), graph.Link(id).target);
    }
    for (int count : seen) EXPECT_EQ(count, 1);
    // Degrees: an NPU has the same number of links out as in; a switch one each way per member.
    for (VertexId v = 0; v < graph.NodeCount(); ++v) {
      EXPECT_EQ(boost::out_degree(v, adjacency), boost::in_degree(v, adjacency));
      if (graph.IsSwitch(v)) {
        EXPECT_EQ(boost::out_degree(v, adjacency), topology.Dim(graph.SwitchDimension(v)).size);
      }
    }
  }
}

TEST(FabricGraphSizeTest, MatchesBuiltGraph) {
  for (const Topology& topology : VariedTopologies()) {
    const FabricGraphSize size = ComputeFabricGraphSize(topology.Dimensions());
    const FabricGraph graph(topology);
    EXPECT_FALSE(size.overflow);
    EXPECT_EQ(size.npu_count, graph.NpuCount());
    EXPECT_EQ(size.switch_count, graph.SwitchCount());
    EXPECT_EQ(size.vertex_count, graph.NodeCount());
    EXPECT_EQ(size.link_count, graph.LinkCount());
    EXPECT_GT(size.estimated_bytes, 0u);
    EXPECT_FALSE(FabricGraphSizeProblem(size, kDefaultFabricGraphMaxBytes).has_value());
  }
}

TEST(FabricGraphSizeTest, ReportsOverflowWithoutBuilding) {
  // 16 dimensions of 1024 NPUs: 2^160 NPUs, beyond 64 bits.
  const std::vector<Dimension> huge(16, Switch(1024));
  const FabricGraphSize size = ComputeFabricGraphSize(huge);
  EXPECT_TRUE(size.overflow);
  const auto problem = FabricGraphSizeProblem(size, kDefaultFabricGraphMaxBytes);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("64 bits"), std::string::npos) << *problem;
}

TEST(FabricGraphSizeTest, ReportsTooManyIds) {
  // [Ring 1024] x 3: 2^30 NPUs, 3 * 2^31 links: more than 32-bit link ids.
  const std::vector<Dimension> dims(3, Ring(1024));
  const FabricGraphSize size = ComputeFabricGraphSize(dims);
  EXPECT_FALSE(size.overflow);
  EXPECT_EQ(size.npu_count, uint64_t{1} << 30);
  EXPECT_EQ(size.link_count, uint64_t{3} << 31);
  const auto problem = FabricGraphSizeProblem(size, ~uint64_t{0});
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("32-bit"), std::string::npos) << *problem;
  // The constructor refuses before allocating anything of that size (it would need ~600 GiB).
  EXPECT_THROW(FabricGraph{Topology(dims)}, std::length_error);
}

TEST(FabricGraphSizeTest, RespectsMemoryLimit) {
  const Topology topology = FourDimensional();
  const FabricGraphSize size = ComputeFabricGraphSize(topology.Dimensions());
  EXPECT_TRUE(FabricGraphSizeProblem(size, size.estimated_bytes - 1).has_value());
  EXPECT_FALSE(FabricGraphSizeProblem(size, size.estimated_bytes).has_value());
  EXPECT_THROW((FabricGraph{topology, size.estimated_bytes - 1}), std::length_error);
  EXPECT_NO_THROW((FabricGraph{topology, size.estimated_bytes}));
}

TEST(FabricGraphSizeTest, CountsLargeFabricExactly) {
  // 65536 NPUs on [FullyConnected 16, Ring 16, Switch 256]:
  // links 65536 * (15 + 2 + 2), switches 65536 / 256 = 256.
  const std::vector<Dimension> dims{FullyConnected(16), Ring(16), Switch(256)};
  const FabricGraphSize size = ComputeFabricGraphSize(dims);
  EXPECT_EQ(size.npu_count, 65536u);
  EXPECT_EQ(size.switch_count, 256u);
  EXPECT_EQ(size.vertex_count, 65792u);
  EXPECT_EQ(size.link_count, 65536u * 19);
}

}  // namespace
}  // namespace hfsim
