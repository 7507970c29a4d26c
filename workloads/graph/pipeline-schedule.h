// What each pipeline stage runs, in which order: the model cut into chunks (one or more per
// stage), and the schedule's sequence of forward and backward steps, one micro-batch through one
// chunk each. One definition of the schedules' rules, read by the training generator
// (training-graph.h) and the memory estimate (workloads/memory-estimate.h) alike:
//   - GPipe: every forward, then every backward;
//   - 1F1B (PipeDream-Flush): p - s - 1 forwards to fill the pipeline, then one forward and one
//     backward in turn, then the remaining backwards;
//   - interleaved 1F1B: the same with v chunks per stage, in Megatron-LM's order
//     (megatron/core/pipeline_parallel/schedules.py, forward_backward_pipelining_with_interleaving:
//     (p - s - 1) x 2 + (v - 1) x p warm-up steps; step k runs chunk (k mod pv) / p, reversed
//     for backward, on micro-batch (k / pv) p + k mod p). It needs a micro-batch count that is
//     a multiple of p.
// A job without a pipeline is the pipeline of one stage: 1F1B with no warm-up, so each
// micro-batch's forward step is followed by its backward step, through one chunk holding every
// layer (Megatron-LM's forward_backward_no_pipelining; gradient accumulation with m above 1).
// Combined 1F1B (Megatron's overlap_moe_expert_parallel_comm, workload.training.overlap's
// expert_all_to_all): one more warm-up forward, and each steady forward step is merged with the
// backward step after it (megatron/core/pipeline_parallel/schedules.py, get_pp_rank_microbatches
// adds the step "to ensure the forward and backward computations are independent";
// combined_1f1b.py, combined_1f1b_schedule_for_no_pipelining runs micro-batch 0's forward alone,
// then micro-batch i + 1's forward with i's backward). Only for one stage or the interleaved
// schedule, as Megatron requires (pipeline-rules.h, ExpertOverlapRefusal).
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/graph/parallel-layout.h"
#include "workloads/layer.h"
#include "workloads/training-loop.h"

namespace hfsim {

/// One step of a stage's schedule: a forward or backward pass of one micro-batch through one of
/// the stage's chunks (0 .. virtual_stages - 1).
struct StageStep {
  bool forward;
  uint32_t micro_batch;
  uint32_t chunk;
  /// A forward step run merged with the backward step after it (combined 1F1B).
  bool paired = false;
};

/// Forward steps stage `stage` runs before its first backward, as the schedule counts them
/// (Megatron's num_warmup_microbatches before it is capped by the steps there are): GPipe all
/// m of them, 1F1B p - s - 1, interleaved (p - s - 1) x 2 + (v - 1) x p; one more for 1F1B
/// and interleaved when `combined` (combined 1F1B).
uint64_t WarmupSteps(const PipelineLayout& layout, uint32_t stage, bool combined = false);

/// The forward and backward steps of stage `stage`, in the order it runs them (2 m v steps).
/// `combined`: combined 1F1B, every steady forward step marked `paired`.
std::vector<StageStep> StageSchedule(const PipelineLayout& layout, uint32_t stage,
                                     bool combined = false);

/// Cuts `cost.size()` layers into `chunks` contiguous, non-empty chunks so that the costliest
/// chunk costs as little as possible (a pipeline runs at the pace of its slowest stage).
/// Returns chunks + 1 boundaries: chunk k is layers [b[k], b[k + 1]). Layers of no cost (an
/// embedding, a norm) join their neighbours; with every cost 0, layers are counted instead.
std::vector<uint32_t> BalancedChunks(const std::vector<double>& cost, uint32_t chunks);

/// The chunks of `layout`'s pipeline (pipeline x virtual_stages of them) over `model`, as
/// BalancedChunks returns them, cut as `layout.split` says. Balanced (the default): by each
/// layer's forward and backward compute as the training loop prices it
/// (BuildTrainingIteration), so GPT-3's 96 blocks split 4 per chunk over 24 chunks with the
/// embedding on the first and the LM head on the last, as Megatron places them. Megatron's or an
/// explicit split: the blocks of each chunk (BlocksPerChunk, pipeline-split.h), the rows before
/// the blocks joining the first chunk and those after them the last. Chunk k runs on stage
/// k mod p. Empty when the layout cannot be cut (fewer layers than chunks, a split that breaks
/// its rules: TrainingLayoutRefusal says why).
std::vector<uint32_t> PipelineChunks(const Model& model, const TrainingConfig& config,
                                     const PipelineLayout& layout);

}  // namespace hfsim
