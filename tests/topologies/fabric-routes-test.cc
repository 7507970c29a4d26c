// Dimension-order routes on the fabric graph (FabricGraph::Route and friends).
#include <gtest/gtest.h>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>
#include <random>
#include <vector>

#include "tests/topologies/fabric-test-topologies.h"
#include "topologies/fabric-graph.h"

namespace hfsim {
namespace {

using namespace hfsim::testing;

// Shortest hop counts from `src` to every vertex, by Boost BFS on the graph itself.
std::vector<uint32_t> BfsHops(const FabricGraph& graph, VertexId src) {
  std::vector<uint32_t> hops(graph.NodeCount(), 0);
  boost::breadth_first_search(
      graph.Adjacency(), src,
      boost::visitor(boost::make_bfs_visitor(boost::record_distances(
          boost::make_iterator_property_map(hops.begin(),
                                            boost::get(boost::vertex_index, graph.Adjacency())),
          boost::on_tree_edge()))));
  return hops;
}

// Checks one route against the graph, DimensionLinks and the hop count.
void ExpectValidRoute(const FabricGraph& graph, VertexId src, VertexId dst) {
  const Topology& topology = graph.GetTopology();
  const std::vector<LinkId> route = graph.Route(src, dst);
  ASSERT_EQ(route.size(), graph.HopCount(src, dst)) << src << " -> " << dst;
  if (src == dst) return;
  ASSERT_FALSE(route.empty());
  EXPECT_EQ(graph.Link(route.front()).source, src);
  EXPECT_EQ(graph.Link(route.back()).target, dst);
  double latency_ns = 0;
  for (size_t i = 0; i < route.size(); ++i) {
    const FabricLink& link = graph.Link(route[i]);
    latency_ns += link.latency_ns;
    if (i + 1 < route.size()) {
      const FabricLink& next = graph.Link(route[i + 1]);
      EXPECT_EQ(link.target, next.source) << "hop " << i;
      EXPECT_LE(link.dimension, next.dimension) << "hop " << i;
    }
  }
  EXPECT_DOUBLE_EQ(graph.RouteLatency_ns(src, dst), latency_ns);
  EXPECT_DOUBLE_EQ(graph.RouteLatency_ns(route), latency_ns);

  // Same links, in the same order, as DimensionLinks gives dimension by dimension: the analytical
  // pricing and the graph route alike.
  std::vector<std::pair<uint32_t, uint32_t>> expected;  // (dimension, local link)
  for (uint32_t d = 0; d < topology.DimensionCount(); ++d) {
    const uint32_t from = topology.Coordinate(src, d);
    const uint32_t to = topology.Coordinate(dst, d);
    if (from == to) continue;
    graph.LinksOf(d).ForEachLinkOnRoute(from, to,
                                        [&](uint32_t local) { expected.emplace_back(d, local); });
  }
  ASSERT_EQ(expected.size(), route.size());
  for (size_t i = 0; i < route.size(); ++i) {
    EXPECT_EQ(graph.Link(route[i]).dimension, expected[i].first) << "hop " << i;
    EXPECT_EQ(graph.Link(route[i]).local_link, expected[i].second) << "hop " << i;
  }
}

TEST(FabricRoutesTest, AllPairsOnSmallFabrics) {
  for (const Topology& topology : VariedTopologies()) {
    if (topology.NpuCount() > 64) continue;
    const FabricGraph graph(topology);
    for (VertexId src = 0; src < graph.NpuCount(); ++src) {
      const std::vector<uint32_t> bfs = BfsHops(graph, src);
      for (VertexId dst = 0; dst < graph.NpuCount(); ++dst) {
        ExpectValidRoute(graph, src, dst);
        // Rings route the shorter way, so dimension order is a shortest path on these products.
        EXPECT_EQ(graph.HopCount(src, dst), bfs[dst]) << src << " -> " << dst;
      }
    }
  }
}

TEST(FabricRoutesTest, RandomPairsMatchBfsShortestPaths) {
  std::mt19937_64 rng(20240611);  // fixed seed: the same pairs every run
  for (const Topology& topology : VariedTopologies()) {
    const FabricGraph graph(topology);
    std::uniform_int_distribution<VertexId> pick(0, static_cast<VertexId>(graph.NpuCount() - 1));
    for (int source_draw = 0; source_draw < 8; ++source_draw) {
      const VertexId src = pick(rng);
      const std::vector<uint32_t> bfs = BfsHops(graph, src);
      for (int pair = 0; pair < 50; ++pair) {
        const VertexId dst = pick(rng);
        ExpectValidRoute(graph, src, dst);
        EXPECT_EQ(graph.Route(src, dst).size(), bfs[dst]) << src << " -> " << dst;
      }
    }
  }
}

TEST(FabricRoutesTest, WorkedRouteOnFourDimensions) {
  // [Ring 4, FC 8, Ring 4, Switch 32]: NPU 0 = (0,0,0,0) to (2,3,3,5) = 2 + 4*3 + 32*3 + 128*5.
  const FabricGraph graph(FourDimensional());
  const Topology& topology = graph.GetTopology();
  const VertexId dst = static_cast<VertexId>(topology.NpuId({2, 3, 3, 5}));
  EXPECT_EQ(dst, 750u);
  // Ring 4, 0 -> 2: tie, clockwise, 2 hops. FC: 1 hop. Ring 4, 0 -> 3: 1 hop counter-clockwise.
  // Switch: up and down, 2 hops.
  EXPECT_EQ(graph.HopCount(0, dst), 6u);
  const std::vector<LinkId> route = graph.Route(0, dst);
  ASSERT_EQ(route.size(), 6u);
  const std::vector<VertexId> path{0, 1, 2, 14, 110, graph.SwitchVertex(3, 110), dst};
  for (size_t i = 0; i < route.size(); ++i) {
    EXPECT_EQ(graph.Link(route[i]).source, path[i]) << "hop " << i;
    EXPECT_EQ(graph.Link(route[i]).target, path[i + 1]) << "hop " << i;
  }
  EXPECT_EQ(graph.Link(route[3]).local_link, 4u + 0u);  // counter-clockwise link of peer 0
  EXPECT_DOUBLE_EQ(graph.RouteLatency_ns(0, dst), 2 * 500.0 + 700.0 + 500.0 + 2 * 1000.0);
}

TEST(FabricRoutesTest, AppendRouteReusesBuffer) {
  const FabricGraph graph(Topology({Ring(5), Switch(3)}));
  std::vector<LinkId> buffer{12345};
  graph.AppendRoute(0, 14, buffer);
  const std::vector<LinkId> route = graph.Route(0, 14);
  ASSERT_EQ(buffer.size(), route.size() + 1);
  EXPECT_EQ(buffer.front(), 12345u);
  EXPECT_TRUE(std::equal(route.begin(), route.end(), buffer.begin() + 1));
  EXPECT_TRUE(graph.Route(7, 7).empty());
  EXPECT_EQ(graph.HopCount(7, 7), 0u);
}

}  // namespace
}  // namespace hfsim
