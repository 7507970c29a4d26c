// Pipeline-parallel training, with tensor and data parallelism around it, as an execution graph.
//
// The model's layers are cut into pipeline x virtual_stages contiguous chunks of (nearly) equal
// compute (PipelineChunks); chunk k runs on pipeline stage k mod pipeline (Megatron's placement: with v
// virtual stages a stage holds chunks s, s + p, ..., s + (v - 1) p). The batch is cut into
// micro-batches; every stage runs forward (F) and backward (B) steps of its chunks, one
// micro-batch at a time, in the order of the schedule:
//   - GPipe: every forward, then every backward;
//   - 1F1B (PipeDream-Flush): p - s - 1 forwards to fill the pipeline, then one forward and one
//     backward in turn, then the remaining backwards;
//   - interleaved 1F1B: the same with v chunks per stage, in Megatron-LM's order
//     (megatron/core/pipeline_parallel/schedules.py, forward_backward_pipelining_with_interleaving:
//     (p - s - 1) x 2 + (v - 1) x p warm-up steps; step k runs chunk (k mod pv) / p, reversed
//     for backward, on micro-batch (k / pv) p + k mod p). It needs a micro-batch count that is a
//     multiple of p.
// A chunk's forward receives the activation of the chunk before it and sends its own to the
// chunk after it; backward sends gradients the other way. Sends and receives run on their own
// streams (posted ahead, as Megatron's batched isend/irecv are), so a stage computes while its
// activations travel; the compute that needs a receive waits for it. Inside a step every layer
// runs as in the data x tensor loop (training-graph.h): compute and its blocking tensor-parallel
// collectives. After the last micro-batch each layer's gradients are all-reduced over the data
// group: on the main stream, or with OverlapMode::kBackward on a background stream as soon as
// the layer's last backward is done.
//
// Gradient buckets (TrainingConfig::bucket_bytes) stay within a chunk. ZeRO-1 reduce-scatters
// the gradients and gathers the updated parameters on the main stream at the end; ZeRO-2 and
// ZeRO-3 are refused (gradients accumulate over micro-batches, as DeepSpeed also refuses).
//
// Measured layer times and explicit activation collectives are per iteration, as in the data x
// tensor loop: each micro-batch takes 1/m of them. A chunk passes on its last layer's whole
// output (no scatter over the tensor group).
//
// Context parallelism (ring attention: Liu et al. 2023, "Ring Attention with Blockwise
// Transformers"; Megatron-core's cp_comm_type "p2p") gives each of C ranks a share of every
// sequence's tokens. In each attention layer a rank computes the attention core in C blocks,
// one per key/value block: its own first, then each block its ring predecessor passes on as
// soon as it holds it (C - 1 hops of one block), so a hop hides behind the block computing
// before it. Backward goes round again with the keys and values, and their gradients follow
// one step behind, summed as they go (C hops, the last bringing them home, where the rest of
// the layer's backward waits for them).
//
// Ranks: by default tensor index fastest, then context, data, pipeline stage (Megatron's
// default order): rank = t + T (c + C (d + D s)), with d = e + E d' under expert parallelism;
// `order` composes them in another order, the first axis fastest. Communicators: 0 "data"
// (same t and s: the data and context ranks, which hold the same parameters), 1 "tensor" (same
// c, d and s), as explicit groups. A stage's ranks with the same context index run one program
// (one rank class): the i-th rank of one class talks to the i-th of the next stage's, or of its
// ring neighbour's, the rank with the same t and d (PeerResolver). Where the fabric places a
// class's ranks unevenly (their groups of different shapes, their sends crossing different
// dimensions), RefineRankClasses tells them apart.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/name-table.h"
#include "topologies/topology.h"
#include "workloads/graph/execution-graph.h"
#include "workloads/layer.h"
#include "workloads/training-loop.h"

namespace hfsim {

enum class PipelineSchedule : uint8_t { kGPipe, kOneFOneB, kInterleaved };
/// The schedule's name in scenarios and reports.
inline constexpr NameTable<PipelineSchedule, 3> kPipelineScheduleNames = {{
    {PipelineSchedule::kGPipe, "gpipe"},
    {PipelineSchedule::kOneFOneB, "1f1b"},
    {PipelineSchedule::kInterleaved, "interleaved"},
}};
inline std::string_view ToString(PipelineSchedule schedule) {
  return NameIn(kPipelineScheduleNames, schedule);
}

/// The parallel dimensions a rank id is made of. Expert parallelism splits the data degree D
/// into E expert ranks (kExpert) times D / E copies of the experts (kData).
enum class ParallelAxis : uint8_t { kTensor, kContext, kExpert, kData, kPipeline };
inline constexpr size_t kParallelAxes = 5;
/// The axis's name in scenarios, in Megatron-core's default order (below).
inline constexpr NameTable<ParallelAxis, kParallelAxes> kParallelAxisNames = {{
    {ParallelAxis::kTensor, "tensor"},
    {ParallelAxis::kContext, "context"},
    {ParallelAxis::kExpert, "expert"},
    {ParallelAxis::kData, "data"},
    {ParallelAxis::kPipeline, "pipeline"},
}};
inline std::string_view ToString(ParallelAxis axis) { return NameIn(kParallelAxisNames, axis); }
/// Megatron-core's default order (tp-cp-ep-dp-pp): the first listed varies fastest.
inline constexpr std::array<ParallelAxis, kParallelAxes> kMegatronOrder = {
    ParallelAxis::kTensor, ParallelAxis::kContext, ParallelAxis::kExpert, ParallelAxis::kData,
    ParallelAxis::kPipeline};

struct PipelineLayout {
  uint32_t pipeline = 1;
  uint32_t micro_batches = 1;
  /// Model chunks per stage; above 1 only with kInterleaved.
  uint32_t virtual_stages = 1;
  PipelineSchedule schedule = PipelineSchedule::kOneFOneB;
  /// How rank ids are composed: the first axis varies fastest (a permutation of all five).
  std::array<ParallelAxis, kParallelAxes> order = kMegatronOrder;
  /// Explicit placement: rank id r (as `order` composes it) runs on NPU placement[r], a
  /// permutation of the NPUs; empty: on NPU r. Any grouping of ranks can be given this way.
  std::vector<uint32_t> placement;
};

/// The degree of each parallel axis (indexed by ParallelAxis): tensor, context, expert, the
/// data degree's copies of the experts (data / expert), pipeline.
std::array<uint32_t, kParallelAxes> AxisDegrees(const TrainingConfig& config,
                                                const PipelineLayout& layout);
/// The stride of each axis in a rank id (indexed by ParallelAxis): the product of the degrees
/// of the axes `layout.order` lists before it.
std::array<uint64_t, kParallelAxes> AxisStrides(const TrainingConfig& config,
                                                const PipelineLayout& layout);

/// Cuts `cost.size()` layers into `chunks` contiguous, non-empty chunks so that the costliest
/// chunk costs as little as possible (a pipeline runs at the pace of its slowest stage).
/// Returns chunks + 1 boundaries: chunk k is layers [b[k], b[k + 1]). Layers of no cost (an
/// embedding, a norm) join their neighbours; with every cost 0, layers are counted instead.
std::vector<uint32_t> BalancedChunks(const std::vector<double>& cost, uint32_t chunks);

/// The chunks of a pipeline over `model`: balanced by each layer's forward and backward compute
/// as the training loop prices it (BuildTrainingIteration), so GPT-3's 96 blocks split 4 per
/// chunk over 24 chunks with the embedding on the first and the LM head on the last, as
/// Megatron places them. Needs at least `chunks` layers.
std::vector<uint32_t> PipelineChunks(const Model& model, const TrainingConfig& config,
                                     uint32_t chunks);

/// `config` gives the whole batch and the tensor and data degrees; tensor x data x pipeline
/// must be the fabric's NPU count. Returns the reason, as text naming what does not fit, when
/// the layout cannot run: fewer layers than chunks, a batch that does not split into
/// data x micro-batches, an interleaved schedule whose micro-batches are not a multiple of the
/// pipeline depth, or ranks placed so unevenly that the graph would hold more than `max_nodes`
/// nodes.
std::variant<ExecutionGraph, std::string> PipelineTrainingGraph(
    const Model& model, const TrainingConfig& config, const PipelineLayout& layout,
    const Topology& topology, uint64_t max_nodes = UINT64_MAX);

}  // namespace hfsim
