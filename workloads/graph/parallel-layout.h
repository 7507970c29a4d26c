// How a training job is laid out over its ranks: the parallel axes a rank id is made of (tensor,
// context, expert, data, pipeline stage), the order that composes them, an explicit placement of
// rank ids on NPUs, and the pipeline's stages, micro-batches and schedule. Plain data: the
// loader fills it (sim/scenario/pipeline-section.h), the training generator (training-graph.h)
// and the memory estimate (workloads/memory-estimate.h) read it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/name-table.h"
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

/// How the model is cut into the pipeline's chunks (workload.training.parallelism.pipeline_split):
///   - kBalanced: hfsim's own cut, the costliest chunk as cheap as it can be (BalancedChunks in
///     pipeline-schedule.h);
///   - kMegatron: Megatron-Core's, every stage the same number of transformer blocks, with its
///     options below (pipeline-split.h has the rules and their sources);
///   - kExplicit: `blocks_per_chunk`, the blocks of each chunk in forward order.
/// The embedding goes with the first chunk and the final norm and head with the last.
enum class PipelineSplitRule : uint8_t { kBalanced, kMegatron, kExplicit };
/// The split's names in scenarios (the explicit one is written as its list).
inline constexpr NameTable<PipelineSplitRule, 2> kPipelineSplitRuleNames = {{
    {PipelineSplitRule::kBalanced, "balanced"},
    {PipelineSplitRule::kMegatron, "megatron"},
}};
/// The name of a split given by name (kBalanced, kMegatron).
inline std::string_view ToString(PipelineSplitRule rule) {
  return NameIn(kPipelineSplitRuleNames, rule);
}
struct PipelineSplit {
  PipelineSplitRule rule = PipelineSplitRule::kBalanced;
  /// kMegatron: Megatron's account_for_embedding_in_pipeline_split and
  /// account_for_loss_in_pipeline_split (the embedding, the loss counted as one layer each).
  bool account_for_embedding = false;
  bool account_for_loss = false;
  /// kMegatron: num_layers_in_first_pipeline_stage and num_layers_in_last_pipeline_stage
  /// (--decoder-first/last-pipeline-num-layers), blocks of the whole stage.
  std::optional<uint32_t> first_stage_blocks;
  std::optional<uint32_t> last_stage_blocks;
  /// kExplicit: transformer blocks of chunk k = c x pipeline + s (stage s's chunk c).
  std::vector<uint32_t> blocks_per_chunk;

  bool operator==(const PipelineSplit&) const = default;
};

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
  /// How the model is cut into the pipeline x virtual_stages chunks.
  PipelineSplit split;
};

/// The degree of each parallel axis (indexed by ParallelAxis): tensor, context, expert, the
/// data degree's copies of the experts (data / expert), pipeline.
std::array<uint32_t, kParallelAxes> AxisDegrees(const TrainingConfig& config,
                                                const PipelineLayout& layout);
/// The stride of each axis in a rank id (indexed by ParallelAxis): the product of the degrees
/// of the axes `layout.order` lists before it.
std::array<uint64_t, kParallelAxes> AxisStrides(const TrainingConfig& config,
                                                const PipelineLayout& layout);

}  // namespace hfsim
