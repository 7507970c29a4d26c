// What one rank of a training job keeps in its accelerator's memory (HBM) at its peak: weights,
// gradients and optimizer states of the layers it holds (sharded as ZeRO says), the activations
// of the micro-batches in flight that backward still needs, and communication buffers. The
// loader refuses a job that does not fit the NPU's capacity (docs/scenario.md §7.5).
//
// Activations follow Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
// Transformer Models", §4, eq. 1-2 and Table 2): a transformer block keeps s b h (34 + 5 a s / h)
// bytes per micro-batch of b sequences with 16-bit activations; tensor parallelism splits 24 of
// the 34 (all 34 with sequence parallelism) and the 5 a s / h of attention; selective
// recomputation drops the attention part; full recomputation keeps only each block's input.
// Context parallelism keeps 1/C of every sequence's activations on each rank, and ring
// attention's key/value blocks in flight.
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
