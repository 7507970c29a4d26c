// Rank classes that engines can trust: every rank of a class must see, in each communicator its
// program uses, a group of the same shape holding the same classes. Engines price and match a
// class's collectives through its first rank, so two ranks of one program in differently shaped
// groups (a group of 2 and a group of 4), or waiting on different classes, would be timed alike
// when they are not. A program written once for many ranks is therefore split into as many
// classes as it needs; generators' symmetric jobs need no split.
#pragma once

#include <cstdint>

#include "topologies/topology.h"
#include "workloads/graph/execution-graph.h"

namespace hfsim {

/// Splits classes until every rank of each one sees the same group shapes and the same classes
/// in its groups, and (for a class of several ranks with sends or receives) reaches its peers by
/// the same offsets along every dimension; a class with sends or receives that must split
/// becomes classes of one rank, with the classes it talks to. Returns false when the refined
/// graph would hold more than `max_nodes` nodes (programs are copied to the parts): the graph
/// is then partly refined and must not be run. Classes keep their order by first rank; programs are copied to the parts.
/// Groups must name existing ranks (CheckGraph's group checks passed).
bool RefineRankClasses(ExecutionGraph& graph, const Topology& topology,
                       uint64_t max_nodes = UINT64_MAX);

}  // namespace hfsim
