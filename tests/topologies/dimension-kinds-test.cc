// Every dimension kind in the table (topologies/dimension-kinds.h), checked generically on every
// valid dimension of up to 16 NPUs its parameter list describes: the table's own consistency,
// links that join what they say, routes that are connected paths of Hops links, routes that an
// NPU on the way continues the same way (the packet engine forwards hop by hop), switches that
// forward along the routes, dense ids that number the used links, and a rank order that is a
// permutation. A new kind gets these checks by being registered; its own test file checks its
// shape by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "topologies/dimension-kinds.h"
#include "topologies/dimension-links.h"
#include "topologies/fabric-graph.h"

namespace hfsim {
namespace {

// Every valid dimension of `kind` with 2 to 16 NPUs: integer parameters over their whole range,
// numbers at the range's low end and one above it.
std::vector<Dimension> SmallDimensions(const DimensionKindEntry& entry) {
  std::vector<Dimension> out;
  for (uint32_t n = 2; n <= 16; ++n) {
    std::vector<Dimension> partial(1);
    partial[0].kind = entry.kind;
    partial[0].size = n;
    partial[0].bandwidth_Bpns = 100.0;
    partial[0].latency_ns = 10.0;
    for (size_t i = 0; i < entry.parameters.size(); ++i) {
      std::vector<Dimension> next;
      for (const Dimension& dim : partial) {
        const ParameterRange range = entry.parameters[i].range(dim);
        std::vector<double> values;
        if (entry.parameters[i].integer) {
          for (double v = range.min; v <= range.max; v += 1.0) values.push_back(v);
        } else {
          values = {range.min, range.min + 1.0};
        }
        for (const double v : values) {
          Dimension with = dim;
          with.parameters[i] = v;
          if (entry.check && entry.check(with, i)) continue;
          next.push_back(with);
        }
      }
      partial = std::move(next);
    }
    for (const Dimension& dim : partial) {
      if (!DimensionProblem(dim)) out.push_back(dim);
    }
  }
  return out;
}

std::string Name(const Dimension& dim) {
  std::string text = std::string(ToString(dim.kind)) + " of " + std::to_string(dim.size);
  for (double p : dim.parameters) text += " " + std::to_string(p);
  return text;
}

TEST(DimensionKinds, TheTableIsInKindOrderAndEveryKindIsSpelledAndParsed) {
  ASSERT_EQ(AllDimensionKinds().size(), kDimensionKindNames.size());
  for (size_t i = 0; i < AllDimensionKinds().size(); ++i) {
    const DimensionKindEntry& entry = *AllDimensionKinds()[i];
    EXPECT_EQ(static_cast<size_t>(entry.kind), i);
    EXPECT_EQ(&KindEntry(entry.kind), &entry);
    EXPECT_EQ(ParseDimensionKind(ToString(entry.kind)), entry.kind);
    EXPECT_NE(entry.make, nullptr);
    EXPECT_LE(entry.min_size, entry.max_size);
    EXPECT_LE(entry.parameters.size(), kMaxShapeParameters);
    EXPECT_FALSE(entry.default_algorithm.empty());
    for (const ShapeParameter& parameter : entry.parameters) {
      EXPECT_NE(parameter.range, nullptr) << parameter.key;
      EXPECT_FALSE(parameter.meaning.empty()) << parameter.key;
    }
  }
  EXPECT_EQ(ParseDimensionKind("ring"), std::nullopt);  // spellings are exact
}

TEST(DimensionKinds, EveryKindHasValidSmallDimensionsAndRefusesBrokenOnes) {
  for (const DimensionKindEntry* entry : AllDimensionKinds()) {
    SCOPED_TRACE(ToString(entry->kind));
    const std::vector<Dimension> dims = SmallDimensions(*entry);
    EXPECT_FALSE(dims.empty());
    Dimension too_small;
    too_small.kind = entry->kind;
    too_small.size = 1;
    EXPECT_TRUE(DimensionProblem(too_small));
    EXPECT_THROW(MakeShape(too_small), std::invalid_argument);
    for (const Dimension& dim : dims) {
      Dimension stray = dim;
      stray.parameters[kMaxShapeParameters - 1] = 7.0;  // past every kind's parameters
      EXPECT_TRUE(DimensionProblem(stray)) << Name(dim);
    }
  }
}

TEST(DimensionKinds, LinksRoutesAndSwitchesAgreeOnEveryKind) {
  int checked = 0;
  for (const DimensionKindEntry* entry : AllDimensionKinds()) {
    for (const Dimension& dim : SmallDimensions(*entry)) {
      SCOPED_TRACE(Name(dim));
      const DimensionLinks links(dim);
      const DimensionShape& shape = links.Shape();
      const uint32_t n = dim.size;
      // Dense ids number the used links 0, 1, ... in local id order.
      uint32_t used = 0;
      std::vector<uint32_t> out_degree(n, 0);
      std::vector<uint32_t> switch_degree(shape.SwitchCount(), 0);
      for (uint32_t local = 0; local < shape.LinkIdCount(); ++local) {
        if (!shape.IsUsedLink(local)) continue;
        EXPECT_EQ(shape.DenseLink(local), used++);
        const LinkEnds ends = shape.Ends(local);
        for (const LinkEnd& end : {ends.source, ends.target}) {
          EXPECT_LT(end.index, end.is_switch ? shape.SwitchCount() : n);
        }
        if (ends.source.is_switch) {
          ++switch_degree[ends.source.index];
        } else {
          ++out_degree[ends.source.index];
          EXPECT_DOUBLE_EQ(shape.LinkFraction(local), shape.NpuLinkFraction());
        }
        EXPECT_GT(shape.LinkFraction(local), 0.0);
      }
      EXPECT_EQ(used, shape.UsedLinkCount());
      for (uint32_t npu = 0; npu < n; ++npu) EXPECT_EQ(out_degree[npu], shape.NpuDegree());
      for (uint32_t degree : switch_degree) EXPECT_LE(degree, shape.SwitchDegree());

      for (uint32_t a = 0; a < n; ++a) {
        EXPECT_EQ(shape.Hops(a, a), 0u);
        for (uint32_t b = 0; b < n; ++b) {
          if (a == b) continue;
          for (uint64_t ecmp = 0; ecmp < (entry->ecmp ? 3u : 1u); ++ecmp) {
            std::vector<uint32_t> route;
            shape.Route(a, b, ecmp).ForEachLink([&](uint32_t local, uint32_t dense) {
              EXPECT_EQ(dense, shape.DenseLink(local));
              route.push_back(local);
            });
            ASSERT_EQ(route.size(), shape.Hops(a, b));
            // A connected path from member a to member b.
            LinkEnd at{false, a};
            double share = 1.0;
            for (size_t i = 0; i < route.size(); ++i) {
              ASSERT_TRUE(shape.IsUsedLink(route[i]));
              const LinkEnds ends = shape.Ends(route[i]);
              EXPECT_EQ(ends.source.is_switch, at.is_switch);
              EXPECT_EQ(ends.source.index, at.index);
              if (at.is_switch) {
                // The switch forwards the packet along this route.
                EXPECT_EQ(shape.SwitchNextLink(at.index, b, ecmp), route[i]);
              } else if (i > 0) {
                // An NPU on the way routes on as the source did.
                std::vector<uint32_t> rest;
                shape.Route(at.index, b, ecmp).ForEachLink([&](uint32_t local, uint32_t) {
                  rest.push_back(local);
                });
                EXPECT_TRUE(std::equal(rest.begin(), rest.end(), route.begin() + i,
                                       route.end()));
              }
              share = std::min(share, shape.LinkFraction(route[i]));
              at = ends.target;
            }
            EXPECT_FALSE(at.is_switch);
            EXPECT_EQ(at.index, b);
            if (ecmp == 0) {
              EXPECT_DOUBLE_EQ(shape.RouteShare(a, b), share);
            }
          }
        }
      }
      // Ranks map onto the positions one to one.
      std::set<uint32_t> positions;
      for (uint32_t rank = 0; rank < n; ++rank) positions.insert(shape.PositionOfRank(rank));
      EXPECT_EQ(positions.size(), n);
      EXPECT_EQ(*positions.rbegin(), n - 1);
      ++checked;
    }
  }
  EXPECT_GT(checked, 50);
}

// The fabric graph of a kind has the kind's links and switches, and every NPU reaches every
// other (with a Ring before and after the kind's dimension, so its groups are not the fabric).
TEST(DimensionKinds, FabricGraphsOfEveryKindAreConnected) {
  Dimension ring;
  ring.kind = DimensionKind::kRing;
  ring.size = 3;
  ring.bandwidth_Bpns = 10.0;
  for (const DimensionKindEntry* entry : AllDimensionKinds()) {
    const std::vector<Dimension> dims = SmallDimensions(*entry);
    for (const Dimension& dim : {dims.front(), dims.back()}) {
      SCOPED_TRACE(Name(dim));
      const FabricGraph graph(Topology({ring, dim, ring}));
      const DimensionLinks links(dim);
      const uint64_t groups = graph.NpuCount() / dim.size;
      EXPECT_EQ(graph.SwitchCount(), groups * links.Shape().SwitchCount());
      const FabricGraphSize size = ComputeFabricGraphSize(std::vector<Dimension>{ring, dim, ring});
      EXPECT_EQ(size.link_count, graph.LinkCount());
      EXPECT_EQ(size.switch_count, graph.SwitchCount());
      EXPECT_TRUE(graph.CheckReachability().AllReachable());
      for (VertexId src = 0; src < graph.NpuCount(); src += 5) {
        for (VertexId dst = 0; dst < graph.NpuCount(); dst += 3) {
          const std::vector<LinkId> route = graph.Route(src, dst, 1);
          ASSERT_EQ(route.size(), graph.HopCount(src, dst));
          if (src == dst) continue;
          EXPECT_EQ(graph.Link(route.front()).source, src);
          EXPECT_EQ(graph.Link(route.back()).target, dst);
          for (size_t i = 0; i + 1 < route.size(); ++i) {
            EXPECT_EQ(graph.Link(route[i]).target, graph.Link(route[i + 1]).source);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace hfsim
