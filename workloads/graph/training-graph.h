// Generators that turn today's workloads into execution graphs: a data x tensor training
// iteration (workloads/training-loop.h) and a lone collective. All NPUs run the same program,
// so each graph has one rank class holding every rank.
#pragma once

#include <array>
#include <vector>

#include "workloads/graph/execution-graph.h"
#include "workloads/training-loop.h"
#include "topologies/topology.h"

namespace hfsim {

/// The collectives a request runs as, in order: itself, or for a split all-reduce (sequence
/// parallelism) an all-gather and then a reduce-scatter of the same buffer. No allocation:
/// generators call it for every collective they write.
struct CollectiveSequence {
  std::array<CollectiveKind, 2> kinds;
  uint32_t count;
  const CollectiveKind* begin() const { return kinds.data(); }
  const CollectiveKind* end() const { return kinds.data() + count; }
  uint32_t size() const { return count; }
};
inline CollectiveSequence SplitKinds(const CommRequest& request) {
  if (!request.split) return {{request.kind, request.kind}, 1};
  return {{CollectiveKind::kAllGather, CollectiveKind::kReduceScatter}, 2};
}

/// Makes `node` the collective `kind` (one of SplitKinds(request)) of `request`, on the
/// training generators' communicators, numbered as ParallelGroup: 0 "data", 1 "tensor" and,
/// with expert parallelism, 2 "expert", 3 "expert_data".
inline void SetCollective(GraphNode& node, CollectiveKind kind, const CommRequest& request) {
  node.kind = GraphNodeKind::kCollective;
  node.collective = kind;
  node.size_bytes = request.size_bytes;
  node.communicator = static_cast<uint32_t>(request.group);
  node.count = request.count;
}

/// One training iteration per NPU: per layer, forward compute then its tensor-parallel
/// collectives; backward in reverse, input-gradient compute, its collectives, weight-gradient
/// compute, then the data-parallel gradient collective. Without overlap every node waits for
/// the one before it (one stream). With OverlapMode::kBackward the gradient collectives run on
/// stream 1, one at a time in the order their gradients are ready, beside backward compute.
/// Communicators: 0 "data" over data_dimensions, 1 "tensor" over tensor_dimensions. A layer's
/// forward compute and its collectives form one step, as do its input-gradient compute, their
/// collectives and its weight-gradient compute (GraphNode::continues_step).
///
/// `tensor_per_dimension` (empty, or one entry per dimension dividing its size): the tensor
/// group's NPUs along each dimension, the data group getting the rest; then groups are listed
/// explicitly, the tensor index varying fastest within each dimension (Megatron's order):
/// coordinate c = tensor index + t x data index, so tensor groups are contiguous blocks and data
/// groups are strided. The iteration is taken by value: its layer names move into the graph.
ExecutionGraph TrainingGraph(TrainingIteration iteration, const Topology& topology,
                             const std::vector<uint32_t>& data_dimensions,
                             const std::vector<uint32_t>& tensor_dimensions,
                             const std::vector<uint32_t>& tensor_per_dimension = {});

/// One collective over `dimensions` (in the order its stages visit them) on every NPU;
/// communicator 0 "all".
ExecutionGraph CollectiveGraph(CollectiveKind kind, uint64_t size_bytes, const Topology& topology,
                               const std::vector<uint32_t>& dimensions);

}  // namespace hfsim
