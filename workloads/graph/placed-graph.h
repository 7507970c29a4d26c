// An execution graph placed on a fabric: the graph, the order its nodes can run in
// (graph-schedule.h) and where each group that runs a collective sits (group-shape.h), checked
// once. Everything that reads a graph against the fabric starts from it: the loader's checks of
// each collective against its algorithms, the engines' admission estimates, every engine, the
// progress estimate, the optimiser and sweeps. It depends on the fabric's dimension kinds and
// sizes and on the graph only, never on bandwidths or latencies, so a job priced at other
// bandwidths (an optimiser step, a sweep point) shares it; anything that changes a dimension's
// size or the workload needs a new one.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "topologies/topology.h"
#include "workloads/graph/execution-graph.h"
#include "workloads/graph/graph-schedule.h"
#include "workloads/graph/group-shape.h"

namespace hfsim {

class PlacedGraph {
 public:
  const ExecutionGraph& Graph() const { return m_graph; }
  const GraphSchedule& Schedule() const { return m_schedule; }
  /// The shape of communicator k's group holding `rank`, for groups some collective runs on.
  const GroupShape& ShapeOf(uint32_t communicator, uint32_t rank) const {
    const Shapes& shapes = m_shapes[communicator];
    if (shapes.group_of_rank.empty()) return shapes.aligned;
    return shapes.groups[shapes.group_of_rank[rank]];
  }
  /// Which group of communicator k holds `rank`: equal numbers, same group (0 for every rank
  /// of a dimension-aligned communicator, whose groups all have one shape).
  uint32_t GroupOf(uint32_t communicator, uint32_t rank) const {
    const Shapes& shapes = m_shapes[communicator];
    return shapes.group_of_rank.empty() ? 0 : shapes.group_of_rank[rank];
  }
  /// The rank class whose program ends last (the first of equals), given every schedule unit's
  /// end: the class whose rank the reports describe (docs/graph.md §3).
  uint32_t LastToEnd(const std::vector<double>& unit_end) const;

 private:
  friend std::variant<PlacedGraph, std::string> PlaceGraph(const Topology& topology,
                                                           ExecutionGraph graph);
  // Per communicator: the shape of its groups (one for a dimension-aligned communicator; per
  // group, indexed through group_of_rank, for explicit groups that run collectives).
  struct Shapes {
    GroupShape aligned;
    std::vector<uint32_t> group_of_rank;
    std::vector<GroupShape> groups;
  };
  ExecutionGraph m_graph;
  GraphSchedule m_schedule;
  std::vector<Shapes> m_shapes;
};

/// Places a graph that passed CheckGraph (generators' graphs do by construction) on the fabric.
/// Refuses, with the reason as text naming the node or group, a graph made for another fabric,
/// one whose ranks wait on each other in a circle, or one with a group the engines cannot price
/// (not a product of coordinates, or part of a Clos dimension).
std::variant<PlacedGraph, std::string> PlaceGraph(const Topology& topology, ExecutionGraph graph);

/// How many graphs PlaceGraph has placed in this process (placed or refused): tests hold a run
/// to one.
uint64_t PlacedGraphCount();

}  // namespace hfsim
