// Writes one rank class's program for the training generator (training-graph.h), node by node:
// a node's id is its position. Shared by the per-step writer (stage-program.h), ring attention
// (ring-attention.h) and ZeRO's parameter gathers (parameter-gathers.h).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "workloads/graph/execution-graph.h"
#include "workloads/training-loop.h"

namespace hfsim {

inline constexpr uint32_t kNoNode = UINT32_MAX;

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
/// training generator's communicators, numbered as ParallelGroup: 0 "data", 1 "tensor" and,
/// with expert parallelism, 2 "expert", 3 "expert_data".
inline void SetCollective(GraphNode& node, CollectiveKind kind, const CommRequest& request) {
  node.kind = GraphNodeKind::kCollective;
  node.collective = kind;
  node.size_bytes = request.size_bytes;
  node.communicator = static_cast<uint32_t>(request.group);
  node.count = request.count;
}

/// Stream 0 holds compute and blocking collectives; these run beside it (docs/graph.md §7).
inline constexpr uint32_t kMainStream = 0;
struct ProgramStreams {
  uint32_t send, recv;  ///< a stage's activations and gradients to and from its neighbours
  uint32_t gradient;    ///< gradient collectives, with overlap
  uint32_t gather;      ///< ZeRO-3's prefetched parameter gathers
  uint32_t tensor;      ///< tensor-parallel collectives' chunks, with their overlap
  uint32_t step_gather; ///< ZeRO-1/2's gathers of the updated parameters, with their overlap
  /// Ring attention's key/value blocks and their gradients, each way: apart, so that they
  /// never queue behind a stage's messages or each other.
  uint32_t ring_send, ring_recv, ring_gradient_send, ring_gradient_recv;
  uint32_t expert;  ///< expert all-to-alls in merged forward and backward steps (combined 1F1B)
};

class ProgramWriter {
 public:
  /// `chained`: every node names the main stream's node before it as a dependency (the data x
  /// tensor loop's form, stage-program.h); otherwise a node names only what its stream does not
  /// imply.
  ProgramWriter(std::vector<GraphNode>& program, bool chained)
      : m_program(program), m_chained(chained) {}

  uint32_t Add(GraphNodeKind kind, GraphPhase phase, uint32_t layer, uint32_t stream,
               bool continues) {
    const auto at = static_cast<uint32_t>(m_program.size());
    GraphNode& node = m_program.emplace_back();
    node.id = at;
    node.kind = kind;
    node.phase = phase;
    node.layer = layer;
    node.stream = stream;
    node.continues_step = continues;
    if (m_chained && m_last_main != kNoNode) node.deps.push_back(m_last_main);
    if (stream == kMainStream) m_last_main = at;
    return at;
  }
  uint32_t Compute(GraphPhase phase, uint32_t layer, double duration_ns, bool continues) {
    const uint32_t at = Add(GraphNodeKind::kCompute, phase, layer, kMainStream, continues);
    m_program[at].duration_ns = duration_ns;
    return at;
  }
  /// One node, or two for a split all-reduce (the second following the first); returns the last.
  uint32_t Collective(GraphPhase phase, uint32_t layer, const CommRequest& request,
                      uint32_t stream, bool continues) {
    uint32_t at = kNoNode;
    for (const CollectiveKind kind : SplitKinds(request)) {
      at = Add(GraphNodeKind::kCollective, phase, layer, stream, continues);
      SetCollective(m_program[at], kind, request);
      continues = continues || request.split;
    }
    return at;
  }
  uint32_t PointToPoint(GraphNodeKind kind, uint32_t peer, uint64_t tag, uint64_t bytes,
                        uint32_t stream) {
    const uint32_t at = Add(kind, GraphPhase::kCollective, kNoLayer, stream, false);
    m_program[at].peer = peer;
    m_program[at].tag = tag;
    m_program[at].size_bytes = bytes;
    return at;
  }
  /// Node `node` also waits for node `on` (nothing when `on` is kNoNode).
  void Wait(uint32_t node, uint32_t on) {
    if (on != kNoNode) m_program[node].deps.push_back(on);
  }
  bool Chained() const { return m_chained; }
  /// The last node written on the main stream, or kNoNode.
  uint32_t LastMain() const { return m_last_main; }

 private:
  std::vector<GraphNode>& m_program;
  bool m_chained;
  uint32_t m_last_main = kNoNode;
};

}  // namespace hfsim
