// Rank classes that engines can trust: every rank of a class must see, in each communicator its
// program uses, a group of the same shape holding the same classes. Engines price and match a
// class's collectives through its first rank, so two ranks of one program in differently shaped
// groups (a group of 2 and a group of 4), or waiting on different classes, would be timed alike
// when they are not. A program written once for many ranks is therefore split into as many
// classes as it needs; generators' symmetric jobs need no split.
#pragma once

#include "topologies/topology.h"
#include "workloads/graph/execution-graph.h"

namespace hfsim {

/// Splits classes until every rank of each one sees the same group shapes and the same classes
/// in its groups. Classes keep their order by first rank; programs are copied to the parts.
/// Groups must name existing ranks (CheckGraph's group checks passed).
void RefineRankClasses(ExecutionGraph& graph, const Topology& topology);

}  // namespace hfsim
