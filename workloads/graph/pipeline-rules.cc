#include "workloads/graph/pipeline-rules.h"

#include <fmt/format.h>

#include "workloads/graph/pipeline-split.h"

namespace hfsim {

std::optional<std::string> DegreesRefusal(uint64_t tensor, uint64_t context,
                                          std::optional<uint64_t> data, uint64_t pipeline,
                                          uint64_t npus) {
  const uint64_t others = tensor * context * pipeline;
  std::string why;
  if (data) {
    if (others * *data == npus) return std::nullopt;
    why = fmt::format("the product is {}, and the fabric has {} NPUs", others * *data, npus);
  } else {
    if (others <= npus && npus % others == 0) return std::nullopt;
    why = fmt::format("no data degree makes it: {} NPUs do not split by tensor x context x "
                      "pipeline = {}",
                      npus, others);
  }
  return fmt::format(
      "tensor ({}) x context ({}) x data ({}) x pipeline ({}) must be the fabric's {} NPUs ({}); "
      "accepted: degrees whose product is {}",
      tensor, context, data ? std::to_string(*data) : "not given", pipeline, npus, why, npus);
}

std::optional<PlacementProblem> PlacementRefusal(const std::vector<uint32_t>& placement,
                                                 uint64_t npus) {
  if (placement.size() != npus) {
    return PlacementProblem{placement.size(),
                            fmt::format("lists {} NPUs; accepted: each of the {} NPUs once, one "
                                        "per rank",
                                        placement.size(), npus)};
  }
  std::vector<int64_t> listed_at(npus, -1);
  for (uint64_t r = 0; r < placement.size(); ++r) {
    const uint32_t npu = placement[r];
    if (npu >= npus) {
      return PlacementProblem{r, fmt::format("NPU {} is not on the fabric; accepted: each of the "
                                             "{} NPUs once",
                                             npu, npus)};
    }
    if (listed_at[npu] >= 0) {
      return PlacementProblem{r, fmt::format("NPU {} is listed twice (also for rank {}); "
                                             "accepted: each of the {} NPUs once",
                                             npu, listed_at[npu], npus)};
    }
    listed_at[npu] = static_cast<int64_t>(r);
  }
  return std::nullopt;
}

std::optional<std::string> RingAttentionRefusal(const Model& model, uint32_t context) {
  if (context <= 1) return std::nullopt;
  for (const Layer& layer : model.layers) {
    if (layer.kv_elements_per_sample > 0 && (layer.forward_ns || layer.input_grad_ns)) {
      return fmt::format(
          "layer \"{}\" gives measured times, which cannot be cut into ring attention's blocks; "
          "accepted with context above 1: FLOPs (forward_flops_per_sample, "
          "attention_flops_per_sample) for attention layers",
          layer.name);
    }
  }
  return std::nullopt;
}

std::optional<std::string> ContextWithExpertsRefusal(uint32_t context, uint32_t experts) {
  if (context <= 1 || experts <= 1) return std::nullopt;
  return fmt::format(
      "context {} with expert {}: context parallelism with expert parallelism is not modelled; "
      "accepted: context 1 with experts",
      context, experts);
}

std::optional<std::string> VirtualStagesRefusal(const PipelineLayout& layout) {
  if (layout.virtual_stages <= 1 || layout.schedule == PipelineSchedule::kInterleaved) {
    return std::nullopt;
  }
  return fmt::format(
      "{} virtual stages: more than one model chunk per stage needs \"pipeline_schedule\": "
      "\"interleaved\"",
      layout.virtual_stages);
}

std::optional<std::string> InterleavedMicroBatchesRefusal(const PipelineLayout& layout) {
  if (layout.schedule != PipelineSchedule::kInterleaved ||
      layout.micro_batches % layout.pipeline == 0) {
    return std::nullopt;
  }
  return fmt::format(
      "the interleaved schedule runs micro-batches in groups of the pipeline depth: {} "
      "micro-batches is not a multiple of {}; accepted: a multiple of {}",
      layout.micro_batches, layout.pipeline, layout.pipeline);
}

std::optional<std::string> ChunksRefusal(size_t layers, const PipelineLayout& layout) {
  const uint64_t chunks = uint64_t{layout.pipeline} * layout.virtual_stages;
  if (layers >= chunks) return std::nullopt;
  return fmt::format(
      "the model's {} layers cannot fill {} pipeline chunks (pipeline {} x virtual stages {}); "
      "accepted: at most {} chunks",
      layers, chunks, layout.pipeline, layout.virtual_stages, layers);
}

std::optional<std::string> PipelineSplitRefusal(const Model& model, const PipelineLayout& layout) {
  if (layout.split.rule == PipelineSplitRule::kBalanced) return std::nullopt;
  auto blocks = BlocksPerChunk(model, layout);
  if (auto* problem = std::get_if<SplitProblem>(&blocks)) {
    return "the pipeline split: " + problem->message;
  }
  return std::nullopt;
}

std::optional<std::string> BatchSplitRefusal(uint64_t batch, uint32_t data,
                                             const PipelineLayout& layout) {
  const uint64_t split = uint64_t{data} * layout.micro_batches;
  if (batch % split == 0) return std::nullopt;
  return fmt::format(
      "a batch of {} samples does not split into {} data-parallel replicas x {} micro-batches; "
      "accepted: a multiple of {}",
      batch, data, layout.micro_batches, split);
}

std::optional<std::string> GradientShardingRefusal(uint32_t zero_stage,
                                                   const PipelineLayout& layout) {
  if (zero_stage <= 1 || (layout.pipeline == 1 && layout.micro_batches == 1)) return std::nullopt;
  if (layout.pipeline == 1) {
    // DeepSpeed runs ZeRO-2 and -3 with gradient accumulation by reducing every micro-batch's
    // gradients into the shards: a different job, not modelled.
    return fmt::format(
        "ZeRO stage {} shards gradients, which cannot accumulate over {} micro-batches (DeepSpeed "
        "reduces them at every micro-batch instead; not modelled); accepted with micro-batches: 0 "
        "or 1",
        zero_stage, layout.micro_batches);
  }
  return fmt::format(
      "ZeRO stage {} shards gradients, which a pipeline accumulates over its micro-batches; "
      "accepted with a pipeline: 0 or 1 (DeepSpeed refuses the same)",
      zero_stage);
}

std::optional<std::string> ExpertOverlapRefusal(const TrainingConfig& config,
                                                const PipelineLayout& layout) {
  if (!config.overlap_options.expert_all_to_all) return std::nullopt;
  if (config.expert_parallel <= 1) {
    return fmt::format(
        "got true with expert {}: Megatron overlaps expert all-to-alls only under expert "
        "parallelism (megatron/core/transformer/transformer_config.py: \"only supported with "
        "expert model parallelism\"); accepted: true with parallelism.expert above 1, or false",
        config.expert_parallel);
  }
  if (layout.pipeline > 1 &&
      (layout.schedule != PipelineSchedule::kInterleaved || layout.virtual_stages < 2)) {
    return fmt::format(
        "got true with pipeline {} under the \"{}\" schedule with {} virtual stage(s): Megatron "
        "merges forward and backward steps only without a pipeline or under the interleaved "
        "schedule (transformer_config.py: \"virtual_pipeline_model_parallel_size must be "
        "specified when pipeline_model_parallel_size > 1\", and a virtual size of 1 is none); "
        "accepted: true with pipeline 1, or with \"pipeline_schedule\": \"interleaved\" and "
        "virtual_stages of 2 or more; or false",
        layout.pipeline, ToString(layout.schedule), layout.virtual_stages);
  }
  if (config.recompute == Recompute::kFull) {
    return std::string(
        "got true with recompute \"full\": Megatron refuses full recomputation with it "
        "(transformer_config.py: \"disable full recomputation\"); accepted: true with recompute "
        "\"none\" or \"selective\", or false");
  }
  if (config.overlap_options.tensor_parallel) {
    return std::string(
        "got true with tensor_parallel true: the tensor-parallel chunks are not modelled inside "
        "merged forward and backward steps; accepted: one of the two");
  }
  return std::nullopt;
}

std::optional<std::string> GraphSizeRefusal(const Model& model, const TrainingConfig& config,
                                            const PipelineLayout& layout, uint64_t max_nodes) {
  // Per micro-batch and chunk, a receive, a send and up to three nodes per layer each way, with
  // ring attention up to 6 C more; and one gradient collective per layer at the end. The
  // generator refuses, in the same terms, a layout whose ranks need more programs.
  const uint64_t layers = model.layers.size();
  const uint64_t context = config.context_parallel;
  // Merged steps (expert_all_to_all) cut a layer pair's passes and exchanges into 12 nodes
  // (stage-program.cc, MergedLayers: 5 forward, 7 backward) instead of 7: 5 more.
  const uint64_t per_layer = 5 + (context > 1 ? 6 * context : 0) +
                             (config.overlap_options.expert_all_to_all ? 5 : 0);
  const uint64_t per_stage =
      uint64_t{layout.micro_batches} *
          (4 * uint64_t{layout.virtual_stages} + per_layer * layers / layout.pipeline + 5) +
      layers;
  const uint64_t programs = uint64_t{layout.pipeline} * context;
  if (per_stage * programs <= max_nodes) return std::nullopt;
  return fmt::format(
      "this job's graph would hold about {} nodes ({} programs x {}), above the {} "
      "hfsim builds; accepted: fewer micro-batches",
      per_stage * programs, programs, per_stage, max_nodes);
}

std::optional<std::string> TrainingLayoutRefusal(const Model& model, const TrainingConfig& config,
                                                 const PipelineLayout& layout, uint64_t npus) {
  if (layout.pipeline == 0 || layout.micro_batches == 0 || layout.virtual_stages == 0 ||
      config.tensor_parallel == 0 || config.data_parallel == 0 || config.context_parallel == 0 ||
      config.expert_parallel == 0) {
    return std::string("every degree, the micro-batch count and the virtual stages must be >= 1");
  }
  if (auto reason = DegreesRefusal(config.tensor_parallel, config.context_parallel,
                                   config.data_parallel, layout.pipeline, npus)) {
    return reason;
  }
  if (!layout.placement.empty()) {
    if (auto problem = PlacementRefusal(layout.placement, npus)) {
      return "the placement " + problem->message;
    }
  }
  if (auto reason = ContextWithExpertsRefusal(config.context_parallel, config.expert_parallel)) {
    return reason;
  }
  if (auto reason = RingAttentionRefusal(model, config.context_parallel)) return reason;
  if (auto reason = VirtualStagesRefusal(layout)) return reason;
  if (auto reason = InterleavedMicroBatchesRefusal(layout)) return reason;
  if (auto reason = ChunksRefusal(model.layers.size(), layout)) return reason;
  if (auto reason = PipelineSplitRefusal(model, layout)) return reason;
  if (auto reason = BatchSplitRefusal(config.global_batch_samples, config.data_parallel, layout)) {
    return reason;
  }
  if (auto reason = GradientShardingRefusal(config.zero_stage, layout)) return reason;
  return ExpertOverlapRefusal(config, layout);
}

}  // namespace hfsim
