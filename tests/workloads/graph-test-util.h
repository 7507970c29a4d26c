// Nodes for hand-written execution graphs in tests.
#pragma once

#include <initializer_list>

#include "workloads/graph/execution-graph.h"

namespace hfsim::test {

inline GraphNode Compute(uint64_t id, double ns, std::initializer_list<uint32_t> deps = {}) {
  GraphNode node;
  node.kind = GraphNodeKind::kCompute;
  node.id = id;
  node.duration_ns = ns;
  node.deps.assign(deps.begin(), deps.end());
  return node;
}

/// A send or receive of 1,000 bytes.
inline GraphNode PointToPoint(GraphNodeKind kind, uint64_t id, uint32_t peer,
                              std::initializer_list<uint32_t> deps = {}) {
  GraphNode node;
  node.kind = kind;
  node.id = id;
  node.peer = peer;
  node.size_bytes = 1000;
  node.deps.assign(deps.begin(), deps.end());
  return node;
}

}  // namespace hfsim::test
