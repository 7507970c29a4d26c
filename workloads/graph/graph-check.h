// Checks an execution graph before any engine runs it, so that a bad graph (hand-written, or
// from a generator with a bug) is refused with the rank and node at fault instead of hanging or
// giving a wrong time. The checks: ranks and classes tile [0, rank_count); every dependency
// points to an earlier node of the same program; groups name existing ranks, each at most once
// per communicator; a rank issues collectives only on communicators it belongs to, and every
// member of a group issues the same sequence (kind, size, count) on it; every send has its
// receive and the other way round. Cross-rank deadlocks are found when the schedule is built
// (graph-schedule.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "workloads/graph/execution-graph.h"

namespace hfsim {

struct GraphError {
  uint32_t rank = 0;
  /// The node's id (GraphNode::id), when the error is about one node.
  std::optional<uint64_t> node;
  std::string message;
  std::string ToString() const;
};

std::optional<GraphError> CheckGraph(const ExecutionGraph& graph);

}  // namespace hfsim
