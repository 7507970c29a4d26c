#include "topologies/fabric-graph.h"

#include "topologies/dimension-kinds.h"

#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/reverse_graph.hpp>
#include <cassert>
#include <limits>
#include <stdexcept>

namespace hfsim {

namespace {

// Heap bytes per vertex and per link of a FabricGraph on a 64-bit build with Boost 1.74. A vertex
// holds an out- and an in-edge vector (2 x 24 B plus padding) whose two heap blocks add malloc
// headers and rounding; a link is one entry of the edge vector (source, target, bundle: 24 B), one
// out- and one in-edge entry (24 B each: target, index, vector pointer) and its FabricLink.
// Measured with mallinfo2 on 4096- to 65536-NPU fabrics the estimate was 8-15% above the real heap;
// it is used only to refuse graphs too big to build, so it errs high.
constexpr uint64_t kBytesPerVertex = 160;
constexpr uint64_t kBytesPerLink = 3 * 24 + sizeof(FabricLink) + 8;

// Vertices of `graph` among [0, npu_count) that BFS from vertex 0 does not reach; the lowest.
template <typename Graph>
std::optional<VertexId> FirstNpuNotReached(const Graph& graph, VertexId npu_count) {
  std::vector<boost::default_color_type> color(boost::num_vertices(graph), boost::white_color);
  const typename boost::graph_traits<Graph>::vertex_descriptor origin = 0;
  boost::breadth_first_search(graph, origin,
                              boost::color_map(boost::make_iterator_property_map(
                                  color.begin(), boost::get(boost::vertex_index, graph))));
  for (VertexId npu = 0; npu < npu_count; ++npu) {
    if (color[npu] == boost::white_color) return npu;
  }
  return std::nullopt;
}

}  // namespace

FabricGraphSize ComputeFabricGraphSize(std::span<const Dimension> dimensions) {
  FabricGraphSize size;
  auto fail = [&size] {
    size = FabricGraphSize{};
    size.overflow = true;
    return size;
  };
  uint64_t npus = 1;
  for (const Dimension& dim : dimensions) {
    if (dim.size < 2) throw std::invalid_argument("FabricGraph: dimension size below 2");
    if (__builtin_mul_overflow(npus, uint64_t{dim.size}, &npus)) return fail();
  }
  uint64_t switches = 0;
  uint64_t links = 0;
  for (const Dimension& dim : dimensions) {
    const std::unique_ptr<const DimensionShape> shape = MakeShape(dim);
    const uint64_t groups = npus / dim.size;
    uint64_t dimension_links = 0;
    uint64_t dimension_switches = 0;
    if (__builtin_mul_overflow(groups, shape->UsedLinkCount(), &dimension_links) ||
        __builtin_add_overflow(links, dimension_links, &links) ||
        __builtin_mul_overflow(groups, uint64_t{shape->SwitchCount()}, &dimension_switches) ||
        __builtin_add_overflow(switches, dimension_switches, &switches)) {
      return fail();
    }
  }
  uint64_t vertices = 0;
  uint64_t vertex_bytes = 0;
  uint64_t link_bytes = 0;
  uint64_t bytes = 0;
  if (__builtin_add_overflow(npus, switches, &vertices) ||
      __builtin_mul_overflow(vertices, kBytesPerVertex, &vertex_bytes) ||
      __builtin_mul_overflow(links, kBytesPerLink, &link_bytes) ||
      __builtin_add_overflow(vertex_bytes, link_bytes, &bytes)) {
    return fail();
  }
  size.npu_count = npus;
  size.switch_count = switches;
  size.vertex_count = vertices;
  size.link_count = links;
  size.estimated_bytes = bytes;
  return size;
}

std::optional<std::string> FabricGraphSizeProblem(const FabricGraphSize& size, uint64_t max_bytes) {
  if (size.overflow) {
    return "fabric graph: the NPU or link count of these dimensions exceeds 64 bits";
  }
  constexpr uint64_t kMaxIds = std::numeric_limits<uint32_t>::max();
  if (size.vertex_count > kMaxIds || size.link_count > kMaxIds) {
    return "fabric graph: " + std::to_string(size.vertex_count) + " vertices and " +
           std::to_string(size.link_count) + " links; vertex and link ids are 32-bit (at most " +
           std::to_string(kMaxIds) + " of each)";
  }
  if (size.estimated_bytes > max_bytes) {
    return "fabric graph: " + std::to_string(size.vertex_count) + " vertices and " +
           std::to_string(size.link_count) + " links need about " +
           std::to_string(size.estimated_bytes >> 20) + " MiB, more than the allowed " +
           std::to_string(max_bytes >> 20) + " MiB";
  }
  return std::nullopt;
}

std::string NpuReachability::Describe() const {
  switch (failure) {
    case Failure::kNone:
      return "every NPU reaches every other NPU";
    case Failure::kNotReachedFromNpu0:
      return "NPU 0 has no path to NPU " + std::to_string(npu);
    case Failure::kCannotReachNpu0:
      return "NPU " + std::to_string(npu) + " has no path to NPU 0";
  }
  return "?";
}

NpuReachability CheckNpuReachability(const FabricAdjacency& graph, VertexId npu_count) {
  if (npu_count == 0 || npu_count > boost::num_vertices(graph)) {
    throw std::invalid_argument("CheckNpuReachability: npu_count outside [1, vertex count]");
  }
  // NPU 0 reaches every NPU and every NPU reaches NPU 0, hence every NPU reaches every other.
  NpuReachability result;
  if (auto npu = FirstNpuNotReached(graph, npu_count)) {
    result.failure = NpuReachability::Failure::kNotReachedFromNpu0;
    result.npu = *npu;
  } else if (auto npu = FirstNpuNotReached(boost::make_reverse_graph(graph), npu_count)) {
    result.failure = NpuReachability::Failure::kCannotReachNpu0;
    result.npu = *npu;
  }
  return result;
}

FabricGraph::FabricGraph(const Topology& topology, uint64_t max_bytes)
    : m_topology(topology), m_npu_count(topology.NpuCount()) {
  const FabricGraphSize size = ComputeFabricGraphSize(topology.Dimensions());
  if (auto problem = FabricGraphSizeProblem(size, max_bytes)) throw std::length_error(*problem);

  uint64_t link_offset = 0;
  uint64_t switch_base = m_npu_count;
  uint32_t npu_degree = 0;
  for (const Dimension& dim : topology.Dimensions()) {
    const DimensionLinks links(dim);
    const uint64_t per_group = links.Shape().UsedLinkCount();
    const uint64_t switches = links.Shape().SwitchCount();
    m_layout.push_back(Layout{links, link_offset, per_group, switch_base, switches});
    const uint64_t groups = m_npu_count / dim.size;
    link_offset += groups * per_group;
    switch_base += groups * switches;
    npu_degree += links.Shape().NpuDegree();
  }

  m_graph = FabricAdjacency(size.vertex_count);
  // Reserve every container up front so building never regrows (and never holds an old and a new
  // copy at once). Boost 1.74 has no public reserve for adjacency_list: m_edges and out_edge_list
  // are public members, boost::in_edge_list an undocumented function.
  m_links.reserve(size.link_count);
  m_graph.m_edges.reserve(size.link_count);
  for (uint64_t v = 0; v < size.vertex_count; ++v) {
    uint32_t degree = npu_degree;
    if (IsSwitch(static_cast<VertexId>(v))) {
      degree = m_layout[SwitchDimension(static_cast<VertexId>(v))].links.Shape().SwitchDegree();
    }
    m_graph.out_edge_list(v).reserve(degree);
    boost::in_edge_list(m_graph, v).reserve(degree);
  }
  for (uint32_t d = 0; d < m_topology.DimensionCount(); ++d) AddLinks(d);
  assert(m_links.size() == size.link_count);
}

void FabricGraph::AddLinks(uint32_t d) {
  const Dimension& dim = m_topology.Dim(d);
  const DimensionLinks& links = m_layout[d].links;
  const DimensionShape& shape = links.Shape();
  const uint64_t stride = m_topology.Stride(d);
  for (uint64_t group = 0; group < m_topology.GroupCount(d); ++group) {
    const uint64_t base = m_topology.GroupBase(d, group);
    auto peer = [&](uint32_t index) { return static_cast<VertexId>(base + index * stride); };
    const uint64_t first_switch = m_layout[d].switch_base + group * m_layout[d].switches_per_group;
    auto hub = [&](uint64_t index) { return static_cast<VertexId>(first_switch + index); };
    for (uint32_t local = 0; local < links.LinkIdCount(); ++local) {
      if (!shape.IsUsedLink(local)) continue;
      const LinkEnds ends = shape.Ends(local);
      auto vertex = [&](const LinkEnd& end) {
        return end.is_switch ? hub(end.index) : peer(end.index);
      };
      const VertexId source = vertex(ends.source);
      const VertexId target = vertex(ends.target);
      const auto id = static_cast<LinkId>(m_links.size());
      assert(id == GroupLinkId(d, group, local));
      m_links.push_back(FabricLink{source, target, d, local,
                                   dim.bandwidth_Bpns * links.LinkBandwidthFraction(local),
                                   dim.latency_ns});
      boost::add_edge(source, target, FabricEdge{id}, m_graph);
    }
  }
}

uint32_t FabricGraph::SwitchDimension(VertexId vertex) const {
  if (!IsSwitch(vertex)) throw std::out_of_range("FabricGraph::SwitchDimension: an NPU vertex");
  for (uint32_t d = 0; d < m_topology.DimensionCount(); ++d) {
    const Layout& layout = m_layout[d];
    if (layout.switches_per_group == 0) continue;
    if (vertex < layout.switch_base + m_topology.GroupCount(d) * layout.switches_per_group) {
      return d;
    }
  }
  throw std::out_of_range("FabricGraph::SwitchDimension: not a switch vertex");
}

uint64_t FabricGraph::SwitchGroup(VertexId vertex) const {
  const Layout& layout = m_layout[SwitchDimension(vertex)];
  return (vertex - layout.switch_base) / layout.switches_per_group;
}

uint32_t FabricGraph::SwitchIndex(VertexId vertex) const {
  const Layout& layout = m_layout[SwitchDimension(vertex)];
  return static_cast<uint32_t>((vertex - layout.switch_base) % layout.switches_per_group);
}

std::vector<LinkId> FabricGraph::Route(VertexId src, VertexId dst, uint64_t ecmp) const {
  std::vector<LinkId> route;
  route.reserve(HopCount(src, dst));
  AppendRoute(src, dst, route, ecmp);
  return route;
}

void FabricGraph::AppendRoute(VertexId src, VertexId dst, std::vector<LinkId>& route,
                              uint64_t ecmp) const {
  ForEachLinkOnRoute(src, dst, ecmp, [&route](LinkId link) { route.push_back(link); });
}

uint32_t FabricGraph::HopCount(VertexId src, VertexId dst) const {
  uint32_t hops = 0;
  for (uint32_t d = 0; d < m_topology.DimensionCount(); ++d) {
    hops += m_layout[d].links.Hops(m_topology.Coordinate(src, d), m_topology.Coordinate(dst, d));
  }
  return hops;
}

double FabricGraph::RouteLatency_ns(VertexId src, VertexId dst) const {
  double latency_ns = 0;
  ForEachLinkOnRoute(src, dst, [&](LinkId link) { latency_ns += m_links[link].latency_ns; });
  return latency_ns;
}

double FabricGraph::RouteLatency_ns(std::span<const LinkId> route) const {
  double latency_ns = 0;
  for (LinkId link : route) latency_ns += m_links[link].latency_ns;
  return latency_ns;
}

}  // namespace hfsim
