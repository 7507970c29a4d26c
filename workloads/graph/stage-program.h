// The program of one rank class of a training job: its stage's schedule of forward and backward
// steps (pipeline-schedule.h), each one micro-batch through one of the stage's chunks, then the
// gradients and ZeRO's gathers. Inside a step every layer runs its compute and then its blocking
// tensor-parallel (and expert) collectives; ZeRO-3 gathers its parameters first
// (parameter-gathers.h); an attention layer under context parallelism runs its core as ring
// attention's blocks (ring-attention.h). A chunk's forward receives the activation of the chunk
// before it and sends its own to the chunk after it; backward sends gradients the other way.
// Sends and receives run on their own streams (posted ahead, as Megatron's batched isend/irecv
// are), so a stage computes while its activations travel; the compute that needs a receive
// waits for it.
//
// Two forms, by where the ranks are placed (rank-placement.h):
//   - kLayerLoop, ranks placed along dimension lists: LIBRA's data x tensor loop, one stage and
//     one micro-batch. Every node names the main stream's node before it as a dependency, and
//     each layer's gradients are reduced as soon as its weight gradients are computed: on the
//     main stream, or with overlap on stream 1 (ZeRO-3's prefetched gathers on stream 2). It is
//     the loop that workloads/training-loop.h's PlayIteration plays, node for node.
//   - kMegatron, ranks composed from the parallel axes: nodes name only the waits their streams
//     do not imply, and every layer's gradients are reduced after the stage's last backward
//     step (Megatron's finalize_model_grads), last layer first: on the main stream, or with
//     overlap on stream 3, each as soon as its layer's last backward is done. The earlier
//     micro-batches' gradients accumulate locally (DDP's no_sync), with or without a pipeline. Sends on 1,
//     receives on 2, ring attention on 4 to 7, ZeRO-3's prefetched gathers on 8.
// The object form of workload.training.overlap (OverlapOptions) adds edges to both forms:
// tensor-parallel collectives cut into chunks pipelined with the layer's GEMMs (stream 9, in the
// loop 3), ZeRO-1/2's step gathers at the start overlapping forward (stream 10, in the loop 4),
// blocking pipeline sends, and merged forward and backward steps whose expert all-to-alls run on
// stream 11 beside the other micro-batch's compute (combined 1F1B; docs/graph.md §7).
// With one micro-batch and overlap the two forms time the same; without overlap the loop blocks
// on each layer's gradients where Megatron's form reduces them all at the end.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/graph/execution-graph.h"
#include "workloads/graph/parallel-layout.h"
#include "workloads/graph/pipeline-schedule.h"
#include "workloads/graph/ring-attention.h"
#include "workloads/training-loop.h"

namespace hfsim {

enum class ProgramForm : uint8_t { kLayerLoop, kMegatron };

/// What every program of a job shares.
struct StageWork {
  /// One micro-batch's work per rank, its gradients bucketed within each chunk.
  const TrainingIteration* micro = nullptr;
  /// Chunk k is layers [boundary[k], boundary[k + 1]); chunk k runs on stage k mod pipeline.
  std::vector<uint32_t> boundary;
  /// Per layer: the bytes a chunk ending with it passes on per micro-batch (and gets back as
  /// gradient). Empty without a pipeline.
  std::vector<uint64_t> boundary_bytes;
  uint32_t pipeline = 1;
  uint32_t context = 1;
  /// Gradient collectives beside backward compute (OverlapMode::kBackward).
  bool overlap = false;
  /// The other overlaps (OverlapOptions); `tensor_chunks`: how many chunks a layer's
  /// tensor-parallel collectives and compute are cut into when they overlap.
  OverlapOptions overlap_options;
  uint32_t tensor_chunks = 1;
  ProgramForm form = ProgramForm::kLayerLoop;
};

/// Who a program talks to: the rank of stage s with its tensor, context and data indices
/// (stage_rank[s]), and its ring attention neighbours.
struct StagePeers {
  std::vector<uint32_t> stage_rank;
  RingNeighbours ring{0, 0};
};

/// The nodes a program of the layer loop holds (to size it once).
uint64_t LayerLoopNodeCount(const TrainingIteration& work);

/// Writes stage `stage`'s program, running `steps`, into `program`.
void WriteStageProgram(const StageWork& work, uint32_t stage, const std::vector<StageStep>& steps,
                       const StagePeers& peers, std::vector<GraphNode>& program);

}  // namespace hfsim
