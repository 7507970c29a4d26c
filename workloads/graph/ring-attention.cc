#include "workloads/graph/ring-attention.h"

namespace hfsim {

uint32_t WriteAttentionRing(ProgramWriter& out, const ProgramStreams& streams,
                            const LayerWork& work, uint32_t layer, bool forward, uint32_t ready,
                            uint32_t context, RingNeighbours ring) {
  const GraphPhase phase = forward ? GraphPhase::kForward : GraphPhase::kInputGrad;
  const double block =
      (forward ? work.attention_forward_ns : work.attention_input_grad_ns) / context;
  const uint64_t tag = kContextTag + 4 * uint64_t{layer} + (forward ? 0 : 1);
  const uint64_t bytes = work.context_kv_bytes;
  // Block j computes on the j-th key/value block, which its predecessor passed on as soon as it
  // held it.
  uint32_t held = ready, last = ready, gradients = kNoNode;
  for (uint32_t j = 0; j < context; ++j) {
    last = out.Compute(phase, layer, block, false);
    if (j > 0) out.Wait(last, held);
    if (j + 1 < context) {
      const uint32_t sent =
          out.PointToPoint(GraphNodeKind::kSend, ring.next, tag, bytes, streams.ring_send);
      out.Wait(sent, held);
      held = out.PointToPoint(GraphNodeKind::kRecv, ring.previous, tag, bytes, streams.ring_recv);
    }
    if (forward) continue;
    // The key/value gradients summed so far, with this block's added, passed on one step behind.
    const uint32_t sent = out.PointToPoint(GraphNodeKind::kSend, ring.next, tag + 1, bytes,
                                           streams.ring_gradient_send);
    out.Wait(sent, last);
    out.Wait(sent, gradients);
    gradients = out.PointToPoint(GraphNodeKind::kRecv, ring.previous, tag + 1, bytes,
                                 streams.ring_gradient_recv);
  }
  return forward ? last : gradients;
}

}  // namespace hfsim
