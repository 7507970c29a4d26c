// The physical fabric as a directed graph (Boost.Graph): every NPU, every switch, every link, and
// the dimension-order routes over them.
//
// Vertex ids: NPUs first, vertex id == NPU id in [0, N); then the switches of every group of every
// dimension whose kind has them (DimensionShape::SwitchCount: one per group of a Switch dimension,
// L leaves then S spines per group of a Clos), dimension by dimension in increasing order, each
// dimension's switches in group order (GroupIndex). Example, [Ring 4,
// Switch 2, Switch 3] (N = 24, strides 1, 4, 8):
//   vertices 0..23  NPUs
//   vertices 24..35 dimension 1 has 24/2 = 12 groups: switch 24 + g serves group g
//   vertices 36..43 dimension 2 has 24/3 = 8 groups:  switch 36 + g serves group g
//   NPU 13 = (1, 1, 1) is in group 1 + 4*(13/8) = 5 of dimension 1 (switch 29, with NPU 9) and in
//   group 13 % 8 = 5 of dimension 2 (switch 41, with NPUs 5 and 21).
//
// Link ids: dimension-major, then group, then the dimension's local link id (DimensionLinks) made
// dense (FullyConnected drops its unused ids i*n+i), so finding a link is arithmetic, not a search:
//   id = LinkOffset(d) + group * LinksPerGroup(d) + dense(local_link)
// In the example each dimension has 2N = 48 links: ids 0..47 (Ring), 48..95, 96..143 (Switches).
// Link ids index Links() and are stored as the Boost edge bundle, so per-link state (queues, load)
// can live in plain vectors indexed by LinkId.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "topologies/dimension-links.h"
#include "topologies/dimension.h"
#include "topologies/topology.h"

namespace hfsim {

using VertexId = uint32_t;
using LinkId = uint32_t;

/// One directed link. Units: bandwidth in bytes per ns, latency in ns.
struct FabricLink {
  VertexId source = 0;
  VertexId target = 0;
  uint32_t dimension = 0;
  uint32_t local_link = 0;    ///< DimensionLinks id within its group
  double bandwidth_Bpns = 0;  ///< dimension's per-NPU bandwidth x LinkBandwidthFraction()
  double latency_ns = 0;
};

/// Bundled edge property of the Boost graph: kept to the id so the edge storage stays small.
struct FabricEdge {
  LinkId link = 0;
};

/// bidirectionalS (a directed graph that also stores in-edges) because the reachability check
/// runs BFS on boost::make_reverse_graph, which needs in_edges. Edge list vecS: edges live in one
/// contiguous vector (no allocation per edge); the graph is never edited after it is built.
using FabricAdjacency =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, boost::no_property,
                          FabricEdge, boost::no_property, boost::vecS>;

/// What a topology's graph would hold, computed without building it. Counts are exact; memory
/// is an estimate of the heap a FabricGraph needs (bytes), from the layout of its containers.
struct FabricGraphSize {
  bool overflow = false;  ///< some count exceeds 64 bits; the counts below are then meaningless
  uint64_t npu_count = 0;
  uint64_t switch_count = 0;
  uint64_t vertex_count = 0;
  uint64_t link_count = 0;
  uint64_t estimated_bytes = 0;
};

/// Exact counts in 64-bit arithmetic; any overflow sets `overflow` instead of wrapping.
/// Throws std::invalid_argument on a dimension size below 2 (as Topology does).
FabricGraphSize ComputeFabricGraphSize(std::span<const Dimension> dimensions);

/// Memory a FabricGraph may take unless the caller allows more (bytes).
inline constexpr uint64_t kDefaultFabricGraphMaxBytes = uint64_t{4} << 30;

/// Why a graph of this size must not be built (overflow, ids beyond 32 bits, more than
/// `max_bytes`), or empty when it may.
std::optional<std::string> FabricGraphSizeProblem(const FabricGraphSize& size, uint64_t max_bytes);

/// Result of the strong-connectivity check among NPUs.
struct NpuReachability {
  enum class Failure {
    kNone,
    kNotReachedFromNpu0,  ///< NPU 0 has no path to `npu`
    kCannotReachNpu0,     ///< `npu` has no path to NPU 0
  };
  Failure failure = Failure::kNone;
  VertexId npu = 0;  ///< the lowest NPU that fails, when failure != kNone

  bool AllReachable() const { return failure == Failure::kNone; }
  std::string Describe() const;
};

/// Every NPU (vertices [0, npu_count)) reaches every other NPU, checked as: BFS from NPU 0 reaches
/// all of them on `graph` and on its reverse. Works on any FabricAdjacency, e.g. one a test edits.
NpuReachability CheckNpuReachability(const FabricAdjacency& graph, VertexId npu_count);

class FabricGraph {
 public:
  /// Throws std::length_error (with FabricGraphSizeProblem's message) if the graph would exceed
  /// `max_bytes` or 32-bit ids; nothing large is allocated before that check.
  explicit FabricGraph(const Topology& topology, uint64_t max_bytes = kDefaultFabricGraphMaxBytes);

  const Topology& GetTopology() const { return m_topology; }
  const FabricAdjacency& Adjacency() const { return m_graph; }

  uint64_t NodeCount() const { return boost::num_vertices(m_graph); }
  uint64_t NpuCount() const { return m_npu_count; }
  uint64_t SwitchCount() const { return NodeCount() - m_npu_count; }
  uint64_t LinkCount() const { return m_links.size(); }

  bool IsSwitch(VertexId vertex) const { return vertex >= m_npu_count; }
  /// The dimension and group a switch vertex serves; std::out_of_range for other vertices.
  uint32_t SwitchDimension(VertexId vertex) const;
  uint64_t SwitchGroup(VertexId vertex) const;
  /// A switch's place in its group (LinkEnd::index): 0 for a Switch dimension's one switch; on a
  /// Clos, leaves are 0 to L - 1 and spines L to L + S - 1.
  uint32_t SwitchIndex(VertexId vertex) const;
  /// The switch of group `group` of Switch dimension d. Precondition: dimension d is a Switch
  /// (a Clos group has leaves and spines: its switch `index` is
  /// switch_base + group x (L + S) + index, see SwitchIndex).
  VertexId SwitchVertex(uint32_t d, uint64_t group) const {
    return static_cast<VertexId>(m_layout[d].switch_base + group * m_layout[d].switches_per_group);
  }

  const FabricLink& Link(LinkId link) const { return m_links[link]; }
  const std::vector<FabricLink>& Links() const { return m_links; }
  const DimensionLinks& LinksOf(uint32_t d) const { return m_layout[d].links; }

  /// Index of the group of dimension d holding `npu`: the inverse of Topology::GroupBase.
  uint64_t GroupIndex(uint64_t npu, uint32_t d) const {
    const uint64_t stride = m_topology.Stride(d);
    return npu % stride + npu / (stride * m_topology.Dim(d).size) * stride;
  }
  /// The link with DimensionLinks id `local_link` in group `group` of dimension d. O(1).
  /// Precondition: local_link is a used id (not i*n+i of a FullyConnected dimension).
  LinkId GroupLinkId(uint32_t d, uint64_t group, uint32_t local_link) const {
    const Layout& layout = m_layout[d];
    return static_cast<LinkId>(layout.link_offset + group * layout.links_per_group +
                               DenseLocalLink(layout, local_link));
  }
  /// Same, for the group of dimension d that holds `npu`.
  LinkId NpuLinkId(uint64_t npu, uint32_t d, uint32_t local_link) const {
    return GroupLinkId(d, GroupIndex(npu, d), local_link);
  }

  /// Calls visit(LinkId) for each link from NPU src to NPU dst in order: coordinates corrected in
  /// dimension order 0, 1, 2, ..., each along DimensionLinks::ForEachLinkOnRoute. Nothing when
  /// src == dst. Precondition (not checked, hot path): src and dst are NPUs (< NpuCount()).
  /// `ecmp` picks the spine of every Clos dimension crossed between leaves (EcmpValue); other
  /// kinds ignore it.
  template <typename Visit>
  void ForEachLinkOnRoute(VertexId src, VertexId dst, uint64_t ecmp, Visit&& visit) const;
  template <typename Visit>
  void ForEachLinkOnRoute(VertexId src, VertexId dst, Visit&& visit) const {
    ForEachLinkOnRoute(src, dst, 0, std::forward<Visit>(visit));
  }
  std::vector<LinkId> Route(VertexId src, VertexId dst, uint64_t ecmp = 0) const;
  /// Appends the route to `route` (reuses the caller's buffer on hot paths).
  void AppendRoute(VertexId src, VertexId dst, std::vector<LinkId>& route, uint64_t ecmp = 0) const;
  /// Route length in links, from per-dimension hop counts without building the route.
  uint32_t HopCount(VertexId src, VertexId dst) const;
  /// Sum of the link latencies along the route, ns.
  double RouteLatency_ns(VertexId src, VertexId dst) const;
  double RouteLatency_ns(std::span<const LinkId> route) const;

  NpuReachability CheckReachability() const {
    return CheckNpuReachability(m_graph, static_cast<VertexId>(m_npu_count));
  }

 private:
  struct Layout {
    DimensionLinks links;
    uint64_t link_offset;         ///< first LinkId of the dimension
    uint64_t links_per_group;     ///< used local ids
    uint64_t switch_base;         ///< first switch vertex (dimensions with switches only)
    uint64_t switches_per_group;  ///< DimensionShape::SwitchCount
  };

  /// A used local id's place among the used ones (FullyConnected closes the gaps at i*n+i).
  static uint32_t DenseLocalLink(const Layout& layout, uint32_t local_link) {
    return layout.links.Shape().DenseLink(local_link);
  }
  void AddLinks(uint32_t d);

  Topology m_topology;
  uint64_t m_npu_count;
  std::vector<Layout> m_layout;  ///< per dimension
  std::vector<FabricLink> m_links;
  FabricAdjacency m_graph;
};

template <typename Visit>
void FabricGraph::ForEachLinkOnRoute(VertexId src, VertexId dst, uint64_t ecmp,
                                     Visit&& visit) const {
  // NPU ids are mixed-radix numbers (dimension 0 fastest), so both ends' coordinates come from
  // one division per dimension each, and the group of the NPU reached so far (dst's coordinates
  // below d, src's above) from what is left of them: the flow and packet engines call this for
  // every message, and a Coordinate() per step costs several divisions.
  uint64_t src_high = src;  // src / stride(d): its coordinates from d on
  uint64_t dst_high = dst;
  uint64_t dst_low = 0;  // dst % stride(d): its coordinates below d
  for (uint32_t d = 0; d < m_topology.DimensionCount() && src_high != dst_high; ++d) {
    const uint32_t n = m_topology.Dim(d).size;
    const uint64_t src_next = src_high / n;
    const uint64_t dst_next = dst_high / n;
    const uint32_t from = static_cast<uint32_t>(src_high - src_next * n);
    const uint32_t to = static_cast<uint32_t>(dst_high - dst_next * n);
    const uint64_t stride = m_topology.Stride(d);
    if (from != to) {
      const Layout& layout = m_layout[d];
      // GroupIndex of the NPU reached so far: its id modulo the stride, plus what lies above d.
      const uint64_t group = dst_low + src_next * stride;
      const uint64_t group_first = layout.link_offset + group * layout.links_per_group;
      layout.links.Shape().Route(from, to, ecmp).ForEachLink([&](uint32_t, uint32_t dense) {
        visit(static_cast<LinkId>(group_first + dense));
      });
    }
    dst_low += static_cast<uint64_t>(to) * stride;
    src_high = src_next;
    dst_high = dst_next;
  }
}

/// The ECMP value of a flow (FabricGraph::ForEachLinkOnRoute): a hash of the seed, its ends and
/// its id (splitmix64 steps), so every message of a run picks its spines deterministically, and
/// another seed spreads them differently.
inline uint64_t EcmpValue(uint64_t seed, uint64_t src, uint64_t dst, uint64_t flow) {
  auto mix = [](uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  return mix(mix(mix(seed) ^ ((src << 32) | dst)) ^ flow);
}

}  // namespace hfsim
