#include "workloads/graph/placed-graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>

#include "topologies/dimension-kinds.h"

namespace hfsim {

namespace {

std::atomic<uint64_t> g_placed{0};

}  // namespace

std::variant<PlacedGraph, std::string> PlaceGraph(const Topology& topology, ExecutionGraph graph) {
  g_placed.fetch_add(1, std::memory_order_relaxed);
  if (graph.rank_count != topology.NpuCount()) {
    return fmt::format("the graph has {} ranks but the fabric has {} NPUs; accepted: one rank "
                       "per NPU",
                       graph.rank_count, topology.NpuCount());
  }
  for (uint32_t d = 0; d < topology.DimensionCount(); ++d) {
    if (d >= graph.dimension_sizes.size() || graph.dimension_sizes[d] != topology.Dim(d).size) {
      return std::string("the graph was made for another fabric (its dimension sizes differ)");
    }
  }
  PlacedGraph placed;
  if (auto error = GraphSchedule::Build(graph, placed.m_schedule)) return error->ToString();

  // The shape of every group some collective runs on. Classes calling on each communicator
  // with explicit groups are found in one pass over the programs (none when every
  // communicator is dimension-aligned, as a generator's usually are).
  std::vector<std::vector<uint32_t>> callers(graph.communicators.size());
  const bool explicit_groups =
      std::any_of(graph.communicators.begin(), graph.communicators.end(),
                  [](const Communicator& comm) { return !comm.DimensionAligned(); });
  for (uint32_t c = 0; c < graph.classes.size() && explicit_groups; ++c) {
    for (const GraphNode& node : graph.classes[c].program) {
      if (node.kind != GraphNodeKind::kCollective) continue;
      auto& list = callers[node.communicator];
      if (list.empty() || list.back() != c) list.push_back(c);
    }
  }
  placed.m_shapes.resize(graph.communicators.size());
  for (uint32_t k = 0; k < graph.communicators.size(); ++k) {
    const Communicator& comm = graph.communicators[k];
    PlacedGraph::Shapes& shapes = placed.m_shapes[k];
    if (comm.DimensionAligned()) {
      shapes.aligned.dimensions.reserve(comm.dimensions.size());
      shapes.aligned.sizes.reserve(comm.dimensions.size());
      for (const uint32_t d : comm.dimensions) {
        if (graph.dimension_sizes[d] < 2) continue;
        shapes.aligned.dimensions.push_back(d);
        shapes.aligned.sizes.push_back(graph.dimension_sizes[d]);
      }
      continue;
    }
    shapes.group_of_rank.assign(graph.rank_count, UINT32_MAX);
    for (uint32_t g = 0; g < comm.groups.size(); ++g) {
      for (const uint32_t rank : comm.groups[g]) shapes.group_of_rank[rank] = g;
    }
    shapes.groups.resize(comm.groups.size());
    std::vector<bool> used(comm.groups.size(), false);
    for (const uint32_t c : callers[k]) {
      for (const uint32_t rank : graph.classes[c].ranks) used[shapes.group_of_rank[rank]] = true;
    }
    for (uint32_t g = 0; g < comm.groups.size(); ++g) {
      if (!used[g]) continue;
      auto shape = ShapeOfGroup(topology, comm.groups[g]);
      if (auto* reason = std::get_if<std::string>(&shape)) {
        return fmt::format("communicator \"{}\", group {} (holding rank {}): {}", comm.name, g,
                           comm.groups[g].front(), *reason);
      }
      const GroupShape& group = std::get<GroupShape>(shape);
      for (size_t i = 0; i < group.dimensions.size(); ++i) {
        const Dimension& dim = topology.Dim(group.dimensions[i]);
        // Some kinds price only whole groups (a Clos: which leaves part of one holds decides
        // its cost, which is not modelled yet; a part of a Torus2D is no torus).
        if (KindEntry(dim.kind).partial_group_share == nullptr && group.sizes[i] != dim.size) {
          return fmt::format(
              "communicator \"{}\", group {} (holding rank {}) spans {} of the {} NPUs of {} "
              "dimension {}; accepted on a {} dimension: groups that span all of it or none of it",
              comm.name, g, comm.groups[g].front(), group.sizes[i], dim.size, ToString(dim.kind),
              group.dimensions[i], ToString(dim.kind));
        }
      }
      shapes.groups[g] = std::get<GroupShape>(std::move(shape));
    }
  }
  placed.m_graph = std::move(graph);
  return placed;
}

uint32_t PlacedGraph::LastToEnd(const std::vector<double>& unit_end) const {
  uint32_t reported = 0;
  double latest = -1.0;
  for (uint32_t c = 0; c < m_graph.classes.size(); ++c) {
    double last = 0.0;
    for (uint32_t i = 0; i < m_graph.classes[c].program.size(); ++i) {
      last = std::max(last, unit_end[m_schedule.UnitOf(c, i)]);
    }
    if (last > latest) {
      latest = last;
      reported = c;
    }
  }
  return reported;
}

uint64_t PlacedGraphCount() { return g_placed.load(std::memory_order_relaxed); }

}  // namespace hfsim
