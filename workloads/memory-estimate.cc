#include "workloads/memory-estimate.h"

#include <algorithm>

#include "workloads/graph/pipeline-schedule.h"

namespace hfsim {

namespace {

// The activations one sample leaves in one layer for its backward pass, on one rank of the
// tensor group. A layer with its architecture's footprint (Layer::saved, docs/memory.md §2)
// keeps its replicated part whole on every tensor rank unless sequence parallelism splits it,
// the rest split; selective recomputation drops the attention core's own state (Korthikanti et
// al. 2022, Table 2). Other layers keep Korthikanti's eq. 1-2 as they state it, or at least
// their output.
double ActivationBytes(const Layer& layer, const TrainingConfig& config) {
  const double t = config.tensor_parallel;
  const double output =
      static_cast<double>(layer.output_elements_per_sample) * config.activation_bytes_per_element;
  if (config.recompute == Recompute::kFull && layer.checkpointed) {
    return config.sequence_parallel ? output / t : output;  // the layer's input only
  }
  if (layer.saved) {
    const SavedActivations& a =
        config.fp8_linear_layers && !layer.high_precision && layer.saved_fp8 ? *layer.saved_fp8
                                                                             : *layer.saved;
    const double replicated = config.sequence_parallel ? a.replicated / t : a.replicated;
    double bytes = replicated + a.split / t + a.routed * config.expert_load / t;
    if (config.recompute != Recompute::kSelective) {
      bytes += (config.attention_keeps_scores ? a.unfused_core : a.fused_core) / t;
    }
    return bytes;
  }
  const double total =
      layer.activation_bytes_per_sample > 0.0 ? layer.activation_bytes_per_sample : output;
  const double attention = layer.attention_activation_bytes_per_sample;
  // Without sequence parallelism 10 of a block's 34 s h bytes (norms, dropout inputs) are
  // kept whole on every tensor rank.
  const double rest = total - attention;
  const double split_rest = config.sequence_parallel || layer.activation_bytes_per_sample == 0.0
                                ? rest / t
                                : rest * (10.0 + 24.0 / t) / 34.0;
  if (config.recompute == Recompute::kSelective) return split_rest;
  return split_rest + attention / t;
}

// Parameters of the layer's GEMMs that Transformer Engine runs in FP8 (its own and its routed
// experts'), which hold an FP8 copy and its transpose under FP8.
struct Fp8Params {
  double own = 0.0, routed = 0.0;
};
Fp8Params Fp8GemmParams(const Layer& layer) {
  Fp8Params p;
  if (layer.high_precision) return p;  // kept in BF16: no FP8 copies
  for (const Operation& op : layer.operations) {
    if (!RunsInFp8UnderTransformerEngine(op.kind)) continue;
    (op.kind == OperationKind::kExpertLinear ? p.routed : p.own) += static_cast<double>(op.params);
  }
  return p;
}

}  // namespace

RankMemory EstimateMemory(const Model& model, const TrainingConfig& config,
                          const PipelineLayout& layout) {
  const uint32_t p = layout.pipeline, v = layout.virtual_stages, m = layout.micro_batches;
  // Each stage's layers as the generator cuts them (the split included).
  const std::vector<uint32_t> boundary = PipelineChunks(model, config, layout);
  if (boundary.empty()) return RankMemory{};  // the loader refuses such a pipeline
  auto first_layer = [&](uint32_t k) { return boundary[k]; };
  const double t = config.tensor_parallel, d = config.data_parallel;
  const double cp = config.context_parallel;
  const double experts_per_rank = config.expert_parallel;
  // A micro-batch's samples per replica; context parallelism keeps a share of their tokens.
  const double samples = static_cast<double>(config.global_batch_samples) / (d * m);
  const double token_share = samples / cp;
  RankMemory worst;
  for (uint32_t s = 0; s < p; ++s) {
    double dense = 0.0, routed = 0.0, activations = 0.0, largest_layer = 0.0, kv_block = 0.0;
    double fp8_dense = 0.0, fp8_routed = 0.0;
    for (uint32_t c = 0; c < v; ++c) {
      const uint32_t k = c * p + s;
      for (uint32_t i = first_layer(k); i < first_layer(k + 1); ++i) {
        const Layer& layer = model.layers[i];
        // A rank holds its share of the routed experts: E / expert of them.
        const auto expert_params = static_cast<double>(layer.RoutedParams());
        const double own = static_cast<double>(layer.params) - expert_params;
        dense += own / t;
        routed += expert_params / experts_per_rank / t;
        largest_layer = std::max(largest_layer, (own + expert_params / experts_per_rank) / t);
        activations += ActivationBytes(layer, config) * token_share;
        if (config.fp8_linear_layers) {
          const Fp8Params fp8 = Fp8GemmParams(layer);
          fp8_dense += fp8.own / t;
          fp8_routed += fp8.routed / experts_per_rank / t;
        }
        kv_block = std::max(kv_block, static_cast<double>(layer.kv_elements_per_sample) *
                                          config.activation_bytes_per_element * token_share / t);
      }
    }
    // Micro-batches (model chunks, when interleaved) whose activations a stage holds at once:
    // its warm-up steps (pipeline-schedule.h) and the first forward after them, each holding
    // one chunk (GPipe: all m; 1F1B: p - s; one more with combined 1F1B's extra warm-up), at
    // most every step it runs forward.
    const uint64_t warmup = WarmupSteps(layout, s, config.overlap_options.expert_all_to_all);
    const double in_flight =
        static_cast<double>(std::min<uint64_t>(uint64_t{m} * v, warmup + 1)) / v;
    // ZeRO shards over the replicas holding the same parameters: the data and context ranks
    // for a layer's own, the expert-data group for routed experts.
    const double expert_copies = d / experts_per_rank;
    auto sharded_of = [&](double own, double experts, double bytes_per_param, uint32_t from_stage) {
      const bool shard = config.zero_stage >= from_stage;
      return own * bytes_per_param / (shard ? d * cp : 1.0) +
             experts * bytes_per_param / (shard ? expert_copies : 1.0);
    };
    auto sharded = [&](double bytes_per_param, uint32_t from_stage) {
      return sharded_of(dense, routed, bytes_per_param, from_stage);
    };
    RankMemory stage;
    stage.stage = s;
    stage.weights_bytes = sharded(config.parameter_bytes_per_param, 3);
    // Transformer Engine's FP8 weight and its transpose, one byte each per parameter of an FP8
    // GEMM (TE 1.x module/linear.py, _Linear.forward's weight_fp8 and weight_t_fp8, cached
    // across micro-batches), beside the 16-bit weights.
    if (config.fp8_linear_layers) stage.weights_bytes += sharded_of(fp8_dense, fp8_routed, 2.0, 3);
    stage.gradients_bytes = sharded(config.GradientBufferBytes(), 2);
    stage.optimizer_bytes = sharded(config.optimizer_bytes_per_param, 1);
    stage.activations_bytes = activations * in_flight;
    // ZeRO-3 holds the layer being used and the one prefetched whole; buckets are copied into
    // flat buffers (PyTorch DDP), one filling while one is reduced.
    if (config.zero_stage == 3) {
      stage.buffers_bytes = 2 * largest_layer * config.parameter_bytes_per_param;
    }
    stage.buffers_bytes += 2.0 * static_cast<double>(config.bucket_bytes);
    // Ring attention holds the key/value block it computes on and the one arriving, each with
    // its gradients in backward.
    if (config.context_parallel > 1) stage.buffers_bytes += 4.0 * kv_block;
    if (s == 0 || stage.TotalBytes() > worst.TotalBytes()) worst = stage;
  }
  // The stage's first rank: its other indices are 0, so it is the stage times the pipeline
  // axis's stride.
  const uint64_t stride = AxisStrides(config, layout)[static_cast<size_t>(ParallelAxis::kPipeline)];
  const uint64_t id = worst.stage * stride;
  worst.rank = static_cast<uint32_t>(layout.placement.empty() ? id : layout.placement[id]);
  return worst;
}

}  // namespace hfsim
