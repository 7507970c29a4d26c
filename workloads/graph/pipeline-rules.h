// The rules a training layout must keep to run, each written once: the loader refuses a
// scenario with the rule's reason at the JSON key that breaks it (sim/scenario/pipeline-section.h,
// sharding-section.h), and the generator (training-graph.h) refuses the same layout with the same
// reason when called directly. Each returns the reason, or nullopt when the rule holds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/graph/parallel-layout.h"
#include "workloads/layer.h"
#include "workloads/training-loop.h"

namespace hfsim {

/// tensor x context x data x pipeline must be the fabric's NPUs; `data` absent: derived from
/// the others, which must divide the NPUs.
std::optional<std::string> DegreesRefusal(uint64_t tensor, uint64_t context,
                                          std::optional<uint64_t> data, uint64_t pipeline,
                                          uint64_t npus);

/// An explicit placement lists each NPU once, one per rank.
struct PlacementProblem {
  uint64_t rank;  ///< the entry at fault (the list's length when it has too few or too many)
  std::string message;
};
std::optional<PlacementProblem> PlacementRefusal(const std::vector<uint32_t>& placement,
                                                 uint64_t npus);

/// Ring attention cuts each attention layer's core into blocks: with context above 1, attention
/// layers give FLOPs, not measured times.
std::optional<std::string> RingAttentionRefusal(const Model& model, uint32_t context);
/// Context parallelism with expert parallelism is not modelled.
std::optional<std::string> ContextWithExpertsRefusal(uint32_t context, uint32_t experts);

/// More than one model chunk per stage needs the interleaved schedule.
std::optional<std::string> VirtualStagesRefusal(const PipelineLayout& layout);
/// The interleaved schedule runs micro-batches in groups of the pipeline depth.
std::optional<std::string> InterleavedMicroBatchesRefusal(const PipelineLayout& layout);
/// Every chunk (pipeline x virtual stages of them) needs a layer.
std::optional<std::string> ChunksRefusal(size_t layers, const PipelineLayout& layout);
/// Megatron's split or an explicit one keeps its rules (BlocksPerChunk, pipeline-split.h); the
/// balanced split always can.
std::optional<std::string> PipelineSplitRefusal(const Model& model, const PipelineLayout& layout);
/// The batch splits into data-parallel replicas x micro-batches.
std::optional<std::string> BatchSplitRefusal(uint64_t batch, uint32_t data,
                                             const PipelineLayout& layout);
/// ZeRO-2 and -3 shard gradients, which cannot accumulate over micro-batches: they run only
/// with one stage and one micro-batch (DeepSpeed refuses them with a pipeline).
std::optional<std::string> GradientShardingRefusal(uint32_t zero_stage,
                                                   const PipelineLayout& layout);
/// Overlapping the expert all-to-alls with another micro-batch's compute (combined 1F1B,
/// OverlapOptions::expert_all_to_all) keeps Megatron-Core's requirements (TransformerConfig's
/// __post_init__): expert parallelism above 1; with a pipeline, the interleaved schedule with
/// at least 2 virtual stages (Megatron drops a virtual size of 1); no full recomputation. And
/// hfsim's own: not together with tensor-parallel overlap (the chunked passes are not written
/// into the merged steps).
std::optional<std::string> ExpertOverlapRefusal(const TrainingConfig& config,
                                                const PipelineLayout& layout);
/// A layout composed from the parallel axes keeps its graph within `max_nodes`: every stage runs
/// one program per context rank, of a size estimated before it is written.
std::optional<std::string> GraphSizeRefusal(const Model& model, const TrainingConfig& config,
                                            const PipelineLayout& layout, uint64_t max_nodes);

/// Every rule above that the generator relies on, in the order it checks them (the batch's split
/// and the layers' measured times included), for `npus` NPUs.
std::optional<std::string> TrainingLayoutRefusal(const Model& model, const TrainingConfig& config,
                                                 const PipelineLayout& layout, uint64_t npus);

}  // namespace hfsim
