// The Torus2D kind (topologies/kinds/torus-2d.cc) by hand on a 3 x 4 torus: its links, hops,
// routes, the Hamiltonian cycle its ranks follow, its closed-form loads, and the shapes it
// refuses.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "topologies/dimension-kinds.h"
#include "topologies/dimension-links.h"
#include "topologies/fabric-graph.h"
#include "topologies/kinds/torus-2d.h"

namespace hfsim {
namespace {

using Ids = std::vector<uint32_t>;

Ids RouteLinks(const DimensionLinks& links, uint32_t src, uint32_t dst) {
  Ids route;
  links.ForEachLinkOnRoute(src, dst, [&route](uint32_t link) { route.push_back(link); });
  return route;
}

// 3 rows x 4 columns, 100 GB/s per NPU: positions
//    0  1  2  3     row 0
//    4  5  6  7     row 1
//    8  9 10 11     row 2
// n = 12; east link y*4 + x, west 12 + y*4 + x, south 24 + x*3 + y, north 36 + x*3 + y.
const Dimension kTorus = Torus2DDimension(3, 4, 100.0, 10.0);

TEST(Torus2D, LinksOfA3x4TorusByHand) {
  const DimensionLinks links(kTorus);
  const DimensionShape& shape = links.Shape();
  EXPECT_EQ(links.LinkIdCount(), 48u);  // 4 per NPU
  EXPECT_EQ(shape.NpuDegree(), 4u);
  EXPECT_EQ(shape.SwitchCount(), 0u);
  EXPECT_DOUBLE_EQ(links.LinkBandwidthFraction(), 0.25);  // as a Ring's 2 links take 0.5 each
  auto ends = [&](uint32_t local) {
    const LinkEnds e = shape.Ends(local);
    EXPECT_FALSE(e.source.is_switch);
    EXPECT_FALSE(e.target.is_switch);
    return std::pair<uint32_t, uint32_t>{e.source.index, e.target.index};
  };
  EXPECT_EQ(ends(0), (std::pair<uint32_t, uint32_t>{0, 1}));    // east in row 0
  EXPECT_EQ(ends(3), (std::pair<uint32_t, uint32_t>{3, 0}));    // east, wrapping
  EXPECT_EQ(ends(12), (std::pair<uint32_t, uint32_t>{0, 3}));   // west, wrapping
  EXPECT_EQ(ends(18), (std::pair<uint32_t, uint32_t>{6, 5}));   // west from (1, 2)
  EXPECT_EQ(ends(24), (std::pair<uint32_t, uint32_t>{0, 4}));   // south in column 0
  EXPECT_EQ(ends(26), (std::pair<uint32_t, uint32_t>{8, 0}));   // south, wrapping
  EXPECT_EQ(ends(28), (std::pair<uint32_t, uint32_t>{5, 9}));   // south from (1, 1): 24 + 3 + 1
  EXPECT_EQ(ends(36), (std::pair<uint32_t, uint32_t>{0, 8}));   // north, wrapping
  EXPECT_EQ(ends(47), (std::pair<uint32_t, uint32_t>{11, 7}));  // north from (2, 3): 36 + 9 + 2
  const FabricGraph graph(Topology({kTorus}));
  EXPECT_EQ(graph.NpuCount(), 12u);
  EXPECT_EQ(graph.SwitchCount(), 0u);
  EXPECT_EQ(graph.LinkCount(), 48u);
  for (const FabricLink& link : graph.Links()) EXPECT_DOUBLE_EQ(link.bandwidth_Bpns, 25.0);
  EXPECT_TRUE(graph.CheckReachability().AllReachable());
}

TEST(Torus2D, HopsAreTheShortestWrappedManhattanDistance) {
  const DimensionLinks links(kTorus);
  EXPECT_EQ(links.Hops(0, 0), 0u);
  EXPECT_EQ(links.Hops(0, 1), 1u);
  EXPECT_EQ(links.Hops(0, 3), 1u);   // column 3 is next to column 0 round the row
  EXPECT_EQ(links.Hops(0, 2), 2u);   // 2 columns either way
  EXPECT_EQ(links.Hops(0, 8), 1u);   // row 2 is next to row 0 round the column
  EXPECT_EQ(links.Hops(0, 5), 2u);   // (0,0) -> (1,1)
  EXPECT_EQ(links.Hops(0, 10), 3u);  // (0,0) -> (2,2): 2 columns + 1 row (the wrap)
  EXPECT_EQ(links.Hops(5, 3), 3u);   // (1,1) -> (0,3): 2 columns + 1 row
  EXPECT_EQ(links.Hops(11, 4), 2u);  // (2,3) -> (1,0): 1 column (wrap) + 1 row
  // The diameter: floor(4/2) + floor(3/2) = 3.
  uint32_t farthest = 0;
  for (uint32_t b = 0; b < 12; ++b) farthest = std::max(farthest, links.Hops(0, b));
  EXPECT_EQ(farthest, 3u);
}

TEST(Torus2D, RoutesGoAlongTheRowThenTheColumnTheShorterWay) {
  const DimensionLinks links(kTorus);
  EXPECT_EQ(RouteLinks(links, 0, 1), (Ids{0}));    // east
  EXPECT_EQ(RouteLinks(links, 1, 0), (Ids{13}));   // west: 12 + 1
  EXPECT_EQ(RouteLinks(links, 3, 0), (Ids{3}));    // east round the end of the row
  EXPECT_EQ(RouteLinks(links, 8, 0), (Ids{26}));   // south round the end of the column
  // (0,0) -> (2,2): east 0 -> 1 -> 2 (a tie, so east), then north from (0,2) to (2,2).
  EXPECT_EQ(RouteLinks(links, 0, 10), (Ids{0, 1, 42}));
  // (1,1) -> (0,3): east in row 1 (links 5, 6), then north in column 3 from row 1 (36 + 9 + 1).
  EXPECT_EQ(RouteLinks(links, 5, 3), (Ids{5, 6, 46}));
  // (2,3) -> (1,0): east round the row (link 11), then north in column 0 from row 2 (36 + 2).
  EXPECT_EQ(RouteLinks(links, 11, 4), (Ids{11, 38}));
  // (0,1) -> (2,0): west (12 + 1), then north in column 0 from row 0 (36 + 0).
  EXPECT_EQ(RouteLinks(links, 1, 8), (Ids{13, 36}));
}

TEST(Torus2D, RanksFollowAHamiltonianCycleOfOneHopSteps) {
  const DimensionLinks links(kTorus);
  // Down column 0, up column 1, down 2, up 3 (rows 1 and 2), then back along row 0.
  const Ids expected = {0, 4, 8, 9, 5, 6, 10, 11, 7, 3, 2, 1};
  for (uint32_t rank = 0; rank < 12; ++rank) {
    EXPECT_EQ(links.Shape().PositionOfRank(rank), expected[rank]) << rank;
  }
  // Every shape from 3 x 3 to 7 x 8: a permutation, each step (and the closing one) one hop.
  for (uint32_t rows = 3; rows <= 7; ++rows) {
    for (uint32_t columns = 3; columns <= 8; ++columns) {
      const DimensionLinks torus(Torus2DDimension(rows, columns));
      const DimensionShape& shape = torus.Shape();
      const uint32_t n = rows * columns;
      std::set<uint32_t> seen;
      for (uint32_t rank = 0; rank < n; ++rank) {
        seen.insert(shape.PositionOfRank(rank));
        EXPECT_EQ(torus.Hops(shape.PositionOfRank(rank), shape.PositionOfRank((rank + 1) % n)), 1u)
            << rows << " x " << columns << " rank " << rank;
      }
      EXPECT_EQ(seen.size(), n);
    }
  }
}

// The closed forms on the 3 x 4 torus, counted by hand. Neighbours on the cycle: 24 one-hop
// transfers, each on a link of its own. All pairs: an east link (y,x) -> (y,x+1) carries the
// routes from row y that go east over it: from column x to x+1 and x+2 (distance 2 is a tie,
// east) and from x-1 to x+1, each to the 3 rows of the destination column: 9 blocks. A south
// link carries, from each of the 4 source columns, the route from the row above it: 4. The
// longest route is 2 + 1 hops; one source reaches the others in 3 x (0+1+2+1) + 4 x (0+1+1) = 20
// hops, 12 sources: 240.
TEST(Torus2D, ClosedFormLoadsByHand) {
  const DimensionLinks links(kTorus);
  const DimensionShape& shape = links.Shape();
  const auto neighbours = shape.Load({TrafficPattern::kNeighbours, 0, 1});
  ASSERT_TRUE(neighbours);
  EXPECT_EQ(neighbours->longest_hops, 1u);
  EXPECT_EQ(neighbours->busiest_link, 1u);
  EXPECT_EQ(neighbours->link_blocks, 24u);
  const auto all = shape.Load({TrafficPattern::kAllPairs, 0, 1});
  ASSERT_TRUE(all);
  EXPECT_EQ(all->longest_hops, 3u);
  EXPECT_EQ(all->busiest_link, 9u);
  EXPECT_EQ(all->link_blocks, 240u);
  EXPECT_EQ(all->second_tier, 0.0);
  // The same by walking every route.
  std::vector<uint64_t> load(shape.LinkIdCount(), 0);
  uint64_t link_blocks = 0;
  for (uint32_t a = 0; a < 12; ++a) {
    for (uint32_t b = 0; b < 12; ++b) {
      if (a == b) continue;
      shape.Route(a, b, 0).ForEachLink([&](uint32_t local, uint32_t) { ++load[local]; });
      link_blocks += shape.Hops(a, b);
    }
  }
  EXPECT_EQ(*std::max_element(load.begin(), load.end()), 9u);
  EXPECT_EQ(link_blocks, 240u);
  // No closed form for the patterns the kind does not carry.
  EXPECT_FALSE(shape.Load({TrafficPattern::kShift, 1, 1}));
  EXPECT_FALSE(shape.Load({TrafficPattern::kXorPartner, 1, 1}));
}

TEST(Torus2D, DegenerateShapesAreRefused) {
  Dimension dim = Torus2DDimension(3, 4);
  EXPECT_FALSE(DimensionProblem(dim));
  dim.parameters[0] = 2;  // 2 x 6: two parallel links between the rows
  EXPECT_TRUE(DimensionProblem(dim));
  dim.parameters[0] = 5;  // does not divide 12
  EXPECT_TRUE(DimensionProblem(dim));
  dim.parameters[0] = 6;  // 6 x 2
  EXPECT_TRUE(DimensionProblem(dim));
  EXPECT_THROW(DimensionLinks(Torus2DDimension(2, 5)), std::invalid_argument);
  EXPECT_THROW(DimensionLinks(Torus2DDimension(1, 9)), std::invalid_argument);
  EXPECT_THROW(DimensionLinks(DimensionKind::kTorus2D, 9), std::invalid_argument);  // no rows
}

}  // namespace
}  // namespace hfsim
