// Context parallelism's ring attention (Liu et al. 2023, "Ring Attention with Blockwise
// Transformers"; Megatron-core's cp_comm_type "p2p"): each of C ranks holds a share of every
// sequence's tokens, and computes an attention layer's core in C blocks, one per key/value
// block: its own first, then each block its ring predecessor passes on as soon as it holds it
// (C - 1 hops of one block), so a hop hides behind the block computing before it. Backward goes
// round again with the keys and values, and their gradients follow one step behind, summed as
// they go (C hops, the last bringing them home, where the rest of the layer's backward waits for
// them).
#pragma once

#include <cstdint>

#include "workloads/graph/program-writer.h"
#include "workloads/training-loop.h"

namespace hfsim {

/// Ring attention's tags, above every stage-to-stage tag (2k and 2k + 1 for chunk k): 4i
/// forward and 4i + 1 backward for layer i's key/value blocks, 4i + 2 for their gradients.
inline constexpr uint64_t kContextTag = uint64_t{1} << 40;

/// The ranks a context rank passes key/value blocks to and gets them from.
struct RingNeighbours {
  uint32_t next;
  uint32_t previous;
};

/// Writes layer `layer`'s attention core (work.attention_forward_ns or attention_input_grad_ns)
/// in `context` blocks after node `ready` (forward: the rest of the layer's compute; backward: a
/// mark where the layer's backward starts). Returns the last node: the last block, or backward
/// the gradients' arrival home.
uint32_t WriteAttentionRing(ProgramWriter& out, const ProgramStreams& streams,
                            const LayerWork& work, uint32_t layer, bool forward, uint32_t ready,
                            uint32_t context, RingNeighbours ring);

}  // namespace hfsim
