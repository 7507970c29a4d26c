// A Clos dimension's fabric (topologies/dimension-links.h, fabric-graph.h): its switches and
// links counted by hand, every route valid for every spine ECMP can pick, and ECMP's spread of
// flows over the spines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "topologies/fabric-graph.h"
#include "topologies/kinds/clos.h"

namespace hfsim {
namespace {

Dimension Clos(uint32_t n, uint32_t k, uint32_t spines, double r, double gbps = 100.0) {
  return ClosDimension(n, {k, spines, r}, gbps, 250.0);
}

// 16 NPUs, 4 per leaf, 2 spines, 2:1: 4 leaves + 2 spines; 16 up + 16 down NPU links and
// 4 x 2 links each way between leaves and spines, each 100 x 4 / (2 x 2) = 100 GB/s.
TEST(ClosFabric, CountsAndBandwidthsByHand) {
  const FabricGraph graph(Topology({Clos(16, 4, 2, 2.0)}));
  EXPECT_EQ(graph.NpuCount(), 16u);
  EXPECT_EQ(graph.SwitchCount(), 6u);
  EXPECT_EQ(graph.LinkCount(), 32u + 16u);
  const FabricGraphSize size = ComputeFabricGraphSize(std::vector<Dimension>{Clos(16, 4, 2, 2.0)});
  EXPECT_EQ(size.switch_count, 6u);
  EXPECT_EQ(size.link_count, 48u);
  for (LinkId id = 0; id < graph.LinkCount(); ++id) {
    const FabricLink& link = graph.Link(id);
    const bool npu_link = !graph.IsSwitch(link.source) || !graph.IsSwitch(link.target);
    EXPECT_DOUBLE_EQ(link.bandwidth_Bpns, 100.0) << id << (npu_link ? " (NPU link)" : "");
  }
  // 8:1 with 4 spines: leaf-spine links of 100 x 4 / (4 x 8) = 12.5 GB/s.
  const FabricGraph thin(Topology({Clos(16, 4, 4, 8.0)}));
  for (LinkId id = 0; id < thin.LinkCount(); ++id) {
    const FabricLink& link = thin.Link(id);
    if (thin.IsSwitch(link.source) && thin.IsSwitch(link.target)) {
      EXPECT_DOUBLE_EQ(link.bandwidth_Bpns, 12.5) << id;
    }
  }
  EXPECT_TRUE(graph.CheckReachability().AllReachable());
  EXPECT_TRUE(thin.CheckReachability().AllReachable());
}

// Every pair, for every spine: the route is connected, starts and ends at the NPUs, takes 2 hops
// within a leaf and 4 across, crosses the spine ECMP picks, and its links are those
// DimensionLinks names; also with a Ring dimension before and a Switch after it.
TEST(ClosFabric, EveryRouteIsValidForEverySpine) {
  Dimension ring;
  ring.kind = DimensionKind::kRing;
  ring.size = 3;
  ring.bandwidth_Bpns = 50;
  Dimension sw;
  sw.kind = DimensionKind::kSwitch;
  sw.size = 2;
  sw.bandwidth_Bpns = 25;
  const FabricGraph graph(Topology({ring, Clos(12, 3, 3, 1.5), sw}));
  const Topology& topology = graph.GetTopology();
  for (VertexId src = 0; src < graph.NpuCount(); ++src) {
    for (VertexId dst = 0; dst < graph.NpuCount(); ++dst) {
      for (uint64_t ecmp = 0; ecmp < 3; ++ecmp) {
        const std::vector<LinkId> route = graph.Route(src, dst, ecmp);
        ASSERT_EQ(route.size(), graph.HopCount(src, dst));
        if (src == dst) continue;
        EXPECT_EQ(graph.Link(route.front()).source, src);
        EXPECT_EQ(graph.Link(route.back()).target, dst);
        for (size_t i = 0; i + 1 < route.size(); ++i) {
          EXPECT_EQ(graph.Link(route[i]).target, graph.Link(route[i + 1]).source);
        }
        const uint32_t a = topology.Coordinate(src, 1);
        const uint32_t b = topology.Coordinate(dst, 1);
        uint32_t clos_hops = 0;
        for (const LinkId id : route) {
          const FabricLink& link = graph.Link(id);
          if (link.dimension != 1) continue;
          ++clos_hops;
          // A spine vertex is its group's switch 4 + s (after the 4 leaves).
          if (graph.IsSwitch(link.target) && graph.IsSwitch(link.source) &&
              graph.SwitchIndex(link.target) >= 4) {
            EXPECT_EQ(graph.SwitchIndex(link.target), 4 + ecmp);
          }
        }
        EXPECT_EQ(clos_hops, a == b ? 0u : (a / 3 == b / 3 ? 2u : 4u));
      }
    }
  }
}

// ECMP over 8 spines: 4,096 flows between the NPUs of two leaves (64 NPUs, 8 per leaf) land within
// 15 % of the mean (512) on every spine, for seeds 1 and 2 (a fair hash: the binomial spread is
// about 21 flows, so 15 % is 3.6 of it); another seed puts them elsewhere.
TEST(ClosFabric, EcmpSpreadsFlowsOverTheSpines) {
  const FabricGraph graph(Topology({Clos(64, 8, 8, 1.0)}));
  auto spread = [&](uint64_t seed) {
    std::vector<uint32_t> per_spine(8, 0);
    std::vector<uint32_t> picks;
    for (uint64_t flow = 0; flow < 64; ++flow) {
      for (VertexId src = 0; src < 8; ++src) {
        for (VertexId dst = 8; dst < 16; ++dst) {
          const std::vector<LinkId> route = graph.Route(src, dst, EcmpValue(seed, src, dst, flow));
          const uint32_t spine = graph.SwitchIndex(graph.Link(route[1]).target) - 8;
          ++per_spine[spine];
          picks.push_back(spine);
        }
      }
    }
    const auto [low, high] = std::minmax_element(per_spine.begin(), per_spine.end());
    EXPECT_GE(*low, 0.85 * 512) << "seed " << seed;
    EXPECT_LE(*high, 1.15 * 512) << "seed " << seed;
    std::printf("seed %llu: %u to %u flows per spine\n", static_cast<unsigned long long>(seed),
                *low, *high);
    return picks;
  };
  const std::vector<uint32_t> one = spread(1);
  EXPECT_EQ(one, spread(1));  // deterministic
  EXPECT_NE(one, spread(2));
}

}  // namespace
}  // namespace hfsim
