// What one rank of a training job keeps in its accelerator's memory (HBM) at its peak: weights,
// gradients and optimizer states of the layers it holds (sharded as ZeRO says), the activations
// of the micro-batches in flight that backward still needs, and communication buffers. The
// loader refuses a job that does not fit the NPU's capacity (docs/scenario.md §7.5).
//
// Activations: what each layer keeps for backward as Megatron-Core with Transformer Engine does
// (Layer::saved, docs/memory.md §2), derived from its shapes as Korthikanti et al. 2022 (§4.1,
// eq. 1) derive s h (34 + 5 a s / h) for GPT, with FlashAttention's softmax statistics unless the
// core is unfused and FP8 inputs under FP8; tensor parallelism splits all but the norms' inputs
// and outputs and dropout masks (those too with sequence parallelism); selective recomputation
// drops the core's own state, full keeps each block's input. Context parallelism keeps 1/C of
// each sequence's activations per rank, and ring attention's key/value blocks in flight.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/graph/parallel-layout.h"
#include "workloads/layer.h"
#include "workloads/training-loop.h"

namespace hfsim {

struct RankMemory {
  uint32_t rank = 0;   ///< the first rank of the stage (pipeline) that needs the most
  uint32_t stage = 0;
  double weights_bytes = 0.0;
  double gradients_bytes = 0.0;
  double optimizer_bytes = 0.0;
  double activations_bytes = 0.0;
  double buffers_bytes = 0.0;
  double TotalBytes() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes + buffers_bytes;
  }
};

/// The rank with the largest total. `layout.pipeline` 1 is the data x tensor loop (one
/// micro-batch of the whole replica batch in flight). Rank ids follow TrainingGraph with ranks composed from the axes.
RankMemory EstimateMemory(const Model& model, const TrainingConfig& config,
                          const PipelineLayout& layout);

}  // namespace hfsim
