// Strong connectivity among NPUs (CheckNpuReachability, FabricGraph::CheckReachability).
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>

#include "tests/topologies/fabric-test-topologies.h"
#include "topologies/fabric-graph.h"

namespace hfsim {
namespace {

using namespace hfsim::testing;
using Failure = NpuReachability::Failure;

// A copy of the fabric's graph without the links `drop` selects: a fabric with broken links.
FabricAdjacency WithoutLinks(const FabricGraph& graph,
                             const std::function<bool(const FabricLink&)>& drop) {
  FabricAdjacency copy(graph.NodeCount());
  for (LinkId id = 0; id < graph.LinkCount(); ++id) {
    const FabricLink& link = graph.Link(id);
    if (!drop(link)) boost::add_edge(link.source, link.target, FabricEdge{id}, copy);
  }
  return copy;
}

TEST(FabricReachabilityTest, ValidFabricsAreStronglyConnected) {
  for (const Topology& topology : VariedTopologies()) {
    const NpuReachability result = FabricGraph(topology).CheckReachability();
    EXPECT_TRUE(result.AllReachable()) << result.Describe();
    EXPECT_EQ(result.failure, Failure::kNone);
  }
}

TEST(FabricReachabilityTest, NpuWithoutOutgoingLinksCannotReachNpu0) {
  const FabricGraph graph(Topology({Ring(4)}));
  const FabricAdjacency broken =
      WithoutLinks(graph, [](const FabricLink& link) { return link.source == 2; });
  const NpuReachability result = CheckNpuReachability(broken, 4);
  EXPECT_FALSE(result.AllReachable());
  EXPECT_EQ(result.failure, Failure::kCannotReachNpu0);
  EXPECT_EQ(result.npu, 2u);
  EXPECT_EQ(result.Describe(), "NPU 2 has no path to NPU 0");
}

TEST(FabricReachabilityTest, MissingSwitchDownLinkIsFound) {
  // [Switch 4]: NPUs 0..3, switch 4. Without the down-link switch -> NPU 3 nobody reaches NPU 3.
  const FabricGraph graph(Topology({Switch(4)}));
  const FabricAdjacency broken = WithoutLinks(
      graph, [](const FabricLink& link) { return link.source == 4 && link.target == 3; });
  const NpuReachability result = CheckNpuReachability(broken, 4);
  EXPECT_EQ(result.failure, Failure::kNotReachedFromNpu0);
  EXPECT_EQ(result.npu, 3u);
  EXPECT_EQ(result.Describe(), "NPU 0 has no path to NPU 3");
}

TEST(FabricReachabilityTest, OneBrokenRingLinkLeavesTheOtherWay) {
  // A ring of 4 keeps every NPU reachable without link 1 -> 2: traffic can go round the other way.
  const FabricGraph graph(Topology({Ring(4), Ring(3)}));
  const FabricAdjacency degraded = WithoutLinks(
      graph, [](const FabricLink& link) { return link.source == 1 && link.target == 2; });
  EXPECT_EQ(boost::num_edges(degraded), graph.LinkCount() - 1);
  EXPECT_TRUE(CheckNpuReachability(degraded, 12).AllReachable());
}

TEST(FabricReachabilityTest, SplitFabricIsFound) {
  // [Ring 3, Ring 2] without its dimension-1 links falls apart into two rings: NPUs 3..5 are cut.
  const FabricGraph graph(Topology({Ring(3), Ring(2)}));
  const FabricAdjacency split =
      WithoutLinks(graph, [](const FabricLink& link) { return link.dimension == 1; });
  const NpuReachability result = CheckNpuReachability(split, 6);
  EXPECT_EQ(result.failure, Failure::kNotReachedFromNpu0);
  EXPECT_EQ(result.npu, 3u);
}

TEST(FabricReachabilityTest, HandMadeGraph) {
  // Vertices 0, 1, 2 are NPUs, 3 a switch nobody uses. 0 <-> 1, 1 -> 2: 2 cannot answer.
  FabricAdjacency graph(4);
  boost::add_edge(0, 1, FabricEdge{0}, graph);
  boost::add_edge(1, 0, FabricEdge{1}, graph);
  boost::add_edge(1, 2, FabricEdge{2}, graph);
  NpuReachability result = CheckNpuReachability(graph, 3);
  EXPECT_EQ(result.failure, Failure::kCannotReachNpu0);
  EXPECT_EQ(result.npu, 2u);
  // Only NPUs must be reachable: with 2 NPUs the idle vertices 2 and 3 do not matter.
  EXPECT_TRUE(CheckNpuReachability(graph, 2).AllReachable());
  boost::add_edge(2, 0, FabricEdge{3}, graph);
  EXPECT_TRUE(CheckNpuReachability(graph, 3).AllReachable());
  EXPECT_THROW(CheckNpuReachability(graph, 5), std::invalid_argument);
  EXPECT_THROW(CheckNpuReachability(graph, 0), std::invalid_argument);
}

}  // namespace
}  // namespace hfsim
