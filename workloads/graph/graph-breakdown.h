// The report's iteration breakdown from a graph's nodes, the same for every engine: each node's
// own time goes to its phase's compute or communication; gradient communication on the main
// stream is all exposed, on a background stream only the tail after the main stream ends.
#pragma once

#include "workloads/graph/execution-graph.h"
#include "workloads/training-loop.h"

namespace hfsim {

/// Gradient communication beside the main stream: only its tail after the main stream ends is
/// exposed.
inline bool IsBackgroundGradientComm(const GraphNode& node) {
  return node.stream != 0 && node.kind != GraphNodeKind::kCompute &&
         node.phase == GraphPhase::kWeightGrad;
}

/// Adds `took` (one node's own time, or one repetition's) to the breakdown; gradient
/// communication on stream 0 also to `main_stream_gradient_comm` (exposed in full).
template <typename Time>
void AddToBreakdown(const GraphNode& node, const Time& took, BasicIterationTimeline<Time>& timeline,
                    Time& main_stream_gradient_comm) {
  // Each field named in its own branch (no reference chosen at run time), so a caller's local
  // breakdown can live in registers while a graph's nodes are summed.
  const bool compute = node.kind == GraphNodeKind::kCompute;
  switch (node.phase) {
    case GraphPhase::kForward:
      if (compute) {
        timeline.forward_compute_ns += took;
      } else {
        timeline.forward_comm_ns += took;
      }
      break;
    case GraphPhase::kInputGrad:
      if (compute) {
        timeline.input_grad_compute_ns += took;
      } else {
        timeline.input_grad_comm_ns += took;
      }
      break;
    case GraphPhase::kWeightGrad:
      if (compute) {
        timeline.weight_grad_compute_ns += took;
      } else {
        timeline.weight_grad_comm_ns += took;
        if (node.stream == 0) main_stream_gradient_comm += took;
      }
      break;
    case GraphPhase::kStep:
      if (compute) timeline.step_compute_ns += took;
      break;
    case GraphPhase::kCollective:
      break;
  }
}

}  // namespace hfsim
