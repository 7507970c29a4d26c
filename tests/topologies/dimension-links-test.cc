// Links inside one dimension group and their routes (topologies/dimension-links.h).
#include "topologies/dimension-links.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace hfsim {
namespace {

std::vector<uint32_t> RouteLinks(const DimensionLinks& links, uint32_t src, uint32_t dst) {
  std::vector<uint32_t> route;
  links.ForEachLinkOnRoute(src, dst, [&route](uint32_t link) { route.push_back(link); });
  return route;
}

using Ids = std::vector<uint32_t>;

TEST(DimensionLinksTest, Ring4) {
  const DimensionLinks ring(DimensionKind::kRing, 4);
  EXPECT_EQ(ring.LinkIdCount(), 8u);
  EXPECT_DOUBLE_EQ(ring.LinkBandwidthFraction(), 0.5);
  EXPECT_EQ(ring.Hops(0, 1), 1u);
  EXPECT_EQ(RouteLinks(ring, 0, 1), (Ids{0}));
  EXPECT_EQ(ring.Hops(0, 3), 1u);
  EXPECT_EQ(RouteLinks(ring, 0, 3), (Ids{4}));  // counter-clockwise 0 -> 3 is link n + 0
  EXPECT_EQ(RouteLinks(ring, 3, 0), (Ids{3}));  // clockwise 3 -> 0 wraps
  EXPECT_EQ(RouteLinks(ring, 2, 1), (Ids{6}));
  // Ties (distance 2 both ways) go clockwise.
  EXPECT_EQ(ring.Hops(0, 2), 2u);
  EXPECT_EQ(RouteLinks(ring, 0, 2), (Ids{0, 1}));
  EXPECT_EQ(RouteLinks(ring, 1, 3), (Ids{1, 2}));
  EXPECT_EQ(RouteLinks(ring, 2, 0), (Ids{2, 3}));
  EXPECT_EQ(RouteLinks(ring, 3, 1), (Ids{3, 0}));
}

TEST(DimensionLinksTest, Ring5TakesShorterWay) {
  const DimensionLinks ring(DimensionKind::kRing, 5);
  EXPECT_EQ(ring.LinkIdCount(), 10u);
  EXPECT_EQ(RouteLinks(ring, 0, 2), (Ids{0, 1}));
  EXPECT_EQ(ring.Hops(0, 3), 2u);
  EXPECT_EQ(RouteLinks(ring, 0, 3), (Ids{5, 9}));  // 0 -> 4 -> 3
  EXPECT_EQ(RouteLinks(ring, 4, 1), (Ids{4, 0}));  // 4 -> 0 -> 1
  // 0 -> 3 as one run: counter-clockwise ids n + 0, n + 4, starting at 0.
  const GroupRoute route = ring.Shape().Route(0, 3, 0);
  ASSERT_EQ(route.run_count, 1u);
  EXPECT_TRUE(route.runs[0].backward);
  EXPECT_EQ(route.runs[0].base, 5u);
  EXPECT_EQ(route.runs[0].start, 0u);
  EXPECT_EQ(route.runs[0].count, 2u);
}

TEST(DimensionLinksTest, Ring8) {
  const DimensionLinks ring(DimensionKind::kRing, 8);
  EXPECT_EQ(ring.Hops(0, 4), 4u);
  EXPECT_EQ(RouteLinks(ring, 0, 4), (Ids{0, 1, 2, 3}));  // tie -> clockwise
  EXPECT_EQ(RouteLinks(ring, 6, 1), (Ids{6, 7, 0}));
  EXPECT_EQ(RouteLinks(ring, 1, 6), (Ids{9, 8, 15}));  // 1 -> 0 -> 7 -> 6
  EXPECT_EQ(RouteLinks(ring, 4, 0), (Ids{4, 5, 6, 7}));  // tie -> clockwise
}

TEST(DimensionLinksTest, Ring2HasOneLinkEachWay) {
  const DimensionLinks ring(DimensionKind::kRing, 2);
  EXPECT_EQ(ring.LinkIdCount(), 2u);
  EXPECT_DOUBLE_EQ(ring.LinkBandwidthFraction(), 1.0);
  EXPECT_EQ(ring.Hops(0, 1), 1u);
  EXPECT_EQ(ring.Hops(1, 0), 1u);
  EXPECT_EQ(RouteLinks(ring, 0, 1), (Ids{0}));
  EXPECT_EQ(RouteLinks(ring, 1, 0), (Ids{1}));
}

TEST(DimensionLinksTest, FullyConnected) {
  const DimensionLinks fc(DimensionKind::kFullyConnected, 4);
  EXPECT_EQ(fc.LinkIdCount(), 16u);
  EXPECT_DOUBLE_EQ(fc.LinkBandwidthFraction(), 1.0 / 3.0);
  EXPECT_EQ(fc.Hops(2, 3), 1u);
  EXPECT_EQ(RouteLinks(fc, 2, 3), (Ids{11}));
  EXPECT_EQ(RouteLinks(fc, 3, 0), (Ids{12}));
  EXPECT_DOUBLE_EQ(DimensionLinks(DimensionKind::kFullyConnected, 8).LinkBandwidthFraction(),
                   1.0 / 7.0);
}

TEST(DimensionLinksTest, SwitchGoesUpThenDown) {
  const DimensionLinks sw(DimensionKind::kSwitch, 6);
  EXPECT_EQ(sw.LinkIdCount(), 12u);
  EXPECT_DOUBLE_EQ(sw.LinkBandwidthFraction(), 1.0);
  EXPECT_EQ(sw.Hops(2, 5), 2u);
  EXPECT_EQ(RouteLinks(sw, 2, 5), (Ids{2, 11}));
  EXPECT_EQ(RouteLinks(sw, 5, 0), (Ids{5, 6}));
}

TEST(DimensionLinksTest, HopsMatchRouteLengthForAllPairs) {
  for (DimensionKind kind :
       {DimensionKind::kRing, DimensionKind::kFullyConnected, DimensionKind::kSwitch}) {
    for (uint32_t n : {2u, 3u, 4u, 5u, 8u, 9u}) {
      const DimensionLinks links(kind, n);
      for (uint32_t src = 0; src < n; ++src) {
        EXPECT_EQ(links.Hops(src, src), 0u);
        for (uint32_t dst = 0; dst < n; ++dst) {
          if (src == dst) continue;
          const std::vector<uint32_t> route = RouteLinks(links, src, dst);
          EXPECT_EQ(route.size(), links.Hops(src, dst)) << ToString(kind) << " " << n;
          for (uint32_t link : route) EXPECT_LT(link, links.LinkIdCount());
          if (kind == DimensionKind::kRing) {
            EXPECT_LE(route.size(), n / 2);  // the shorter way round
          }
        }
      }
    }
  }
}

TEST(DimensionLinksTest, RejectsFewerThanTwoPeers) {
  EXPECT_THROW(DimensionLinks(DimensionKind::kRing, 1), std::invalid_argument);
  EXPECT_THROW(DimensionLinks(DimensionKind::kSwitch, 0), std::invalid_argument);
}

}  // namespace
}  // namespace hfsim
