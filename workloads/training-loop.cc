#include "workloads/training-loop.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "workloads/kernel-pricing.h"

namespace hfsim {

namespace {

double ComputeNs(double flops, const TrainingConfig& config) {
  return flops / (config.peak_flops_per_ns * config.compute_efficiency);
}

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// One forward pass of `layer` on one rank, by roofline: each operation takes the longer of its
// arithmetic and its memory traffic (activations read and written, parameters read), both at
// the NPU's efficiency. `share` is the rank's part of the per-sample work (samples / (T x C)).
// A layer without operations (or priced as one) is one: all its FLOPs; it reads its parameters
// (with routed experts, the rank's share of them) and its input and writes its output (both taken
// as the output's size); without FLOPs (a table lookup, a norm) it moves its activations only.
double RooflineNs(const Layer& layer, double routed_flops, double share,
                  const TrainingConfig& config) {
  const double flop_rate = config.peak_flops_per_ns * config.compute_efficiency;
  const double byte_rate = config.memory_bytes_per_ns * config.compute_efficiency;
  const double tensor = config.tensor_parallel;
  auto roofline = [&](double flops, double activation_elements, double params) {
    const double bytes = activation_elements * share * config.activation_bytes_per_element +
                         params / tensor * config.parameter_bytes_per_param;
    return std::max(flops * share / flop_rate, bytes / byte_rate);
  };
  if (layer.operations.empty() || layer.roofline_as_one) {
    const double flops = layer.forward_flops_per_sample + routed_flops;
    const auto routed = static_cast<double>(layer.RoutedParams());
    const double params =
        flops > 0 ? static_cast<double>(layer.params) - routed + routed / config.expert_parallel
                  : 0.0;
    return roofline(flops, 2.0 * static_cast<double>(layer.output_elements_per_sample), params);
  }
  double ns = 0.0;
  for (const Operation& op : layer.operations) {
    ns += roofline(op.flops_per_sample, op.activation_elements_per_sample,
                   static_cast<double>(op.params));
  }
  // Routed experts (not split into operations): their arithmetic and the rank's experts.
  if (routed_flops > 0) {
    ns += roofline(routed_flops, 0.0,
                   static_cast<double>(layer.RoutedParams()) / config.expert_parallel);
  }
  return ns;
}

}  // namespace

std::array<bool, kOverlapKeys.size()> OverlapSwitches(OverlapMode gradients,
                                                      const OverlapOptions& options) {
  return {gradients == OverlapMode::kBackward, options.parameter_gather, options.tensor_parallel,
          options.pipeline_sends, options.expert_all_to_all};
}

std::string OverlapSummary(OverlapMode gradients, const OverlapOptions& options) {
  if (!options.object_form) return std::string(ToString(gradients));
  const auto on = OverlapSwitches(gradients, options);
  std::string named;
  for (size_t i = 0; i < kOverlapKeys.size(); ++i) {
    if (!on[i]) continue;
    if (!named.empty()) named += '+';
    named += kOverlapKeys[i];
  }
  return named.empty() ? "none" : named;
}

double ExpertExchangeBytes(const RoutedExperts& routed, const TrainingConfig& config,
                           uint64_t samples) {
  return config.expert_load * static_cast<double>(samples * routed.tokens_per_sample) *
         routed.top_k * static_cast<double>(routed.token_elements) *
         config.activation_bytes_per_element / config.tensor_parallel;
}

TrainingIteration BuildTrainingIteration(const Model& model, const TrainingConfig& config) {
  if (config.data_parallel == 0 || config.tensor_parallel == 0 ||
      config.global_batch_samples % config.data_parallel != 0) {
    throw std::invalid_argument("BuildTrainingIteration: batch does not split over replicas");
  }
  const uint64_t samples = config.global_batch_samples / config.data_parallel;
  // Tensor parallelism splits each layer's matrices, context parallelism its tokens: per-token
  // work divides by both.
  const double tensor = config.tensor_parallel;
  const uint32_t context = config.context_parallel;
  const double split = tensor * context;
  // The replicas that hold the same parameters and reduce their gradients together.
  const uint32_t replicas = config.data_parallel * context;
  TrainingIteration iteration;
  iteration.overlap = config.overlap;
  iteration.layers.reserve(model.layers.size());
  // Identical layers (a model's blocks) are kernel-priced once (workloads/kernel-pricing.h).
  std::optional<KernelLayerMemo> kernel_memo;
  if (config.kernel_model) kernel_memo.emplace(*config.kernel_model, config, samples);
  // Each layer's work is written where it is kept, field by field: building a CommRequest
  // and then copying it reads back, in wide loads, fields just stored one by one, which stalls
  // (store forwarding fails) and cost more than the rest of this loop.
  // A measured time is the whole iteration's: one micro-batch's pass takes its share.
  const auto divisor = static_cast<double>(config.measured_time_divisor);
  auto measured_or = [divisor](const std::optional<double>& measured, double modelled) {
    return measured ? *measured / divisor : modelled;
  };
  for (const Layer& layer : model.layers) {
    LayerWork& work = iteration.layers.emplace_back();
    work.name = layer.name;
    // The kernel-level compute model prices a layer with shaped operations (and no measured
    // times) operation by operation; every other layer takes the roofline below.
    const bool measured = layer.forward_ns || layer.input_grad_ns || layer.weight_grad_ns;
    // Full recomputation reruns the forward of the layers Megatron checkpoints.
    const bool full_recompute = config.recompute == Recompute::kFull && layer.checkpointed;
    std::optional<KernelLayerTimes> kernels;
    if (config.kernel_model && !measured) {
      kernels = kernel_memo->Price(layer);
    }
    // The input-gradient pass before recomputation adds to it.
    double input_grad_alone_ns = 0.0;
    if (kernels) {
      work.forward_ns = kernels->forward.TotalNs();
      work.input_grad_ns = kernels->input_grad.TotalNs();
      input_grad_alone_ns = work.input_grad_ns;
      work.weight_grad_ns = kernels->weight_grad.TotalNs();
      // Recomputation as below: the whole forward again, or the attention core's forward.
      const double recomputed = full_recompute ? work.forward_ns
                                : config.recompute == Recompute::kSelective
                                    ? kernels->attention_forward_ns
                                    : 0.0;
      work.input_grad_ns += recomputed;
      // The GEMMs' share of each pass (the recomputed forward's own GEMMs run again too), with
      // what the userbuffers kernels beside them add: the slowed GEMMs are what the chunked
      // collectives run beside.
      const double forward_gemm = kernels->forward.kernels[OpClass::kGemm] +
                                  kernels->forward.kernels[OpClass::kCommKernelOverhead];
      const double input_grad_gemm = kernels->input_grad.kernels[OpClass::kGemm] +
                                     kernels->input_grad.kernels[OpClass::kCommKernelOverhead] +
                                     (full_recompute ? forward_gemm : 0.0);
      if (work.forward_ns > 0) work.forward_gemm_share = forward_gemm / work.forward_ns;
      if (work.input_grad_ns > 0) work.input_grad_gemm_share = input_grad_gemm / work.input_grad_ns;
      if (context > 1 && kernels->attention_forward_ns > 0) {
        work.attention_forward_ns = kernels->attention_forward_ns;
        work.attention_input_grad_ns =
            kernels->attention_backward_ns +
            (config.recompute == Recompute::kNone ? 0.0 : kernels->attention_forward_ns);
      }
    } else {
      // Tensor parallelism splits every layer's arithmetic T ways (Megatron shards the matrices;
      // the replicated norms are negligible). Backward = input gradients + weight gradients,
      // each as costly as the forward pass.
      // Routed experts: every token's top-k experts, on the busiest rank (expert_load).
      double routed_flops = 0.0;
      if (layer.routed) {
        const RoutedExperts& routed = *layer.routed;
        routed_flops = config.expert_load * routed.top_k * routed.forward_flops_per_token *
                       static_cast<double>(routed.tokens_per_sample);
      }
      const double forward_flops =
          (layer.forward_flops_per_sample + routed_flops) * samples / split;
      const double forward_ns =
          config.memory_bytes_per_ns > 0
              ? RooflineNs(layer, routed_flops, static_cast<double>(samples) / split, config)
              : ComputeNs(forward_flops, config);
      work.forward_ns = measured_or(layer.forward_ns, forward_ns);
      work.input_grad_ns = measured_or(layer.input_grad_ns, forward_ns);
      input_grad_alone_ns = work.input_grad_ns;
      // The attention core's share of the layer's arithmetic: what selective recomputation runs
      // again, and what ring attention runs block by block. Divided out only when one of them
      // needs it: every sweep point builds this loop.
      const bool needs_share = config.recompute == Recompute::kSelective || context > 1;
      const double attention_share =
          needs_share && layer.attention_flops_per_sample > 0
              ? layer.attention_flops_per_sample / (layer.forward_flops_per_sample + routed_flops)
              : 0.0;
      // Recomputation runs before the input gradients: the whole forward again, or its attention
      // core's share of it.
      if (full_recompute) {
        work.input_grad_ns += work.forward_ns;
      } else if (config.recompute == Recompute::kSelective && attention_share > 0) {
        work.input_grad_ns += work.forward_ns * attention_share;
      }
      // Ring attention runs the attention core block by block (context_kv_bytes below); the
      // recomputed core runs in the backward blocks, whose key/value blocks it needs.
      if (context > 1 && attention_share > 0) {
        work.attention_forward_ns = work.forward_ns * attention_share;
        const double recomputed =
            config.recompute == Recompute::kNone ? 0.0 : work.attention_forward_ns;
        work.attention_input_grad_ns =
            measured_or(layer.input_grad_ns, forward_ns) * attention_share + recomputed;
      }
      work.weight_grad_ns = layer.params == 0 ? measured_or(layer.weight_grad_ns, 0.0)
                                              : measured_or(layer.weight_grad_ns, forward_ns);
    }
    if (context > 1 && layer.kv_elements_per_sample > 0) {
      work.context_kv_bytes =
          CeilDiv(samples * layer.kv_elements_per_sample * config.activation_bytes_per_element,
                  uint64_t{config.tensor_parallel} * context);
    }
    auto request = [](std::optional<CommRequest>& slot, CollectiveKind kind, ParallelGroup group,
                      uint64_t size_bytes, uint32_t count, bool split = false) {
      CommRequest& made = slot.emplace();
      made.kind = kind;
      made.group = group;
      made.size_bytes = size_bytes;
      made.count = count;
      made.split = split;
    };
    // Explicit collectives replace the derived ones of their phase; a group of one NPU has
    // nothing to exchange.
    const bool tensor_split = config.tensor_parallel > 1;
    const uint64_t whole_activation =
        samples * layer.output_elements_per_sample * config.activation_bytes_per_element;
    const uint64_t activation_bytes =
        context == 1 ? whole_activation : CeilDiv(whole_activation, context);
    const bool derived_activation = tensor_split && layer.tensor_parallel_all_reduces > 0;
    // Forward and input gradients exchange the same activation over the tensor group; a
    // recomputed forward runs its collectives again before the input gradients' own (Megatron's
    // checkpoint reruns the layer's forward, its tensor-parallel all-reduces or all-gathers and
    // reduce-scatters included).
    auto tensor_phase = [&](std::optional<CommRequest>& slot,
                            const std::optional<LayerComm>& given, uint32_t passes) {
      if (given) {
        if (tensor_split) request(slot, given->kind, ParallelGroup::kTensor, given->size_bytes, 1);
      } else if (derived_activation) {
        request(slot, CollectiveKind::kAllReduce, ParallelGroup::kTensor, activation_bytes,
                layer.tensor_parallel_all_reduces * passes, config.sequence_parallel);
      }
    };
    tensor_phase(work.forward_comm, layer.forward_comm, 1);
    tensor_phase(work.input_grad_comm, layer.input_grad_comm, full_recompute ? 2 : 1);
    // Gradients of `total` parameters over `group` (of `replicas` ranks): all-reduced, or with
    // ZeRO reduce-scattered and the parameters gathered (before use, or after the step). The
    // replica's share of the layer (its tensor slice), whole: collective-kind.h sizes a
    // reduce-scatter by its input and an all-gather by its output.
    auto gradients = [&](uint64_t total, ParallelGroup group, uint32_t replicas,
                         std::optional<CommRequest>& reduce, std::optional<CommRequest>& step,
                         std::optional<CommRequest>* before_use) {
      if (replicas <= 1 || total == 0) return;
      const uint64_t params = CeilDiv(total, config.tensor_parallel);
      const uint64_t gradient_bytes = params * config.gradient_bytes_per_param;
      const uint64_t parameter_bytes = params * config.parameter_bytes_per_param;
      if (config.zero_stage == 0) {
        request(reduce, CollectiveKind::kAllReduce, group, gradient_bytes, 1);
        return;
      }
      request(reduce, CollectiveKind::kReduceScatter, group, gradient_bytes, 1);
      request(config.zero_stage == 3 ? *before_use : step, CollectiveKind::kAllGather, group,
              parameter_bytes, 1);
    };
    // With expert parallelism a routed expert lives on data / expert ranks, which exchange the
    // tokens routed to it both ways in each pass and reduce its gradients among themselves.
    const uint32_t expert = config.expert_parallel;
    const bool expert_split = layer.routed && expert > 1;
    const uint64_t expert_params =
        expert_split ? uint64_t{layer.routed->experts} / expert * layer.routed->params_per_expert
                     : 0;
    if (expert_split) {
      const auto bytes =
          static_cast<uint64_t>(std::ceil(ExpertExchangeBytes(*layer.routed, config, samples)));
      request(work.forward_expert, CollectiveKind::kAllToAll, ParallelGroup::kExpert, bytes, 2);
      // A recomputed forward dispatches and combines its tokens again (Megatron's checkpoint
      // wraps the whole transformer layer, its token dispatcher included).
      request(work.input_grad_expert, CollectiveKind::kAllToAll, ParallelGroup::kExpert, bytes,
              full_recompute ? 4 : 2);
      if (config.overlap_options.expert_all_to_all) {
        // The routed experts' share of the layer's FLOPs (every token's top-k experts on the
        // busiest rank, as priced above) splits each pass into Megatron's pre-dispatch and
        // expert (mlp) nodes; recomputation belongs to the pre-dispatch part (attention).
        const RoutedExperts& routed = *layer.routed;
        const double routed_flops = config.expert_load * routed.top_k *
                                    routed.forward_flops_per_token *
                                    static_cast<double>(routed.tokens_per_sample);
        const double total = layer.forward_flops_per_sample + routed_flops;
        const double share = total > 0 ? routed_flops / total : 0.0;
        work.expert_forward_ns = work.forward_ns * share;
        work.expert_input_grad_ns = input_grad_alone_ns * share;
        work.expert_weight_grad_ns = work.weight_grad_ns * share;
      }
      std::optional<CommRequest> unused;
      gradients(expert_params, ParallelGroup::kExpertData, config.data_parallel / expert,
                work.expert_grad_comm, work.expert_step_gather, &unused);
    }
    if (layer.weight_grad_comm) {
      if (replicas > 1) {
        request(work.weight_grad_comm, layer.weight_grad_comm->kind, ParallelGroup::kData,
                layer.weight_grad_comm->size_bytes, 1);
      }
    } else {
      // Without expert parallelism every rank holds every expert: one collective for it all.
      const uint64_t dense = expert_split ? layer.params - layer.RoutedParams() : layer.params;
      gradients(dense, ParallelGroup::kData, replicas, work.weight_grad_comm, work.step_gather,
                &work.forward_gather);
      if (config.zero_stage == 3) work.backward_gather = work.forward_gather;
    }
  }
  iteration.prefetch_parameters = config.zero_stage == 3 && config.prefetch_parameters;
  return iteration;
}

void BucketGradients(std::vector<LayerWork>& layers, uint32_t first, uint32_t last,
                     uint64_t bucket_bytes) {
  if (bucket_bytes == 0) return;
  // The open bucket: its layer (the latest to join, the lowest index) and its sums.
  LayerWork* open = nullptr;
  auto close = [&] { open = nullptr; };
  for (uint32_t i = last; i-- > first;) {
    LayerWork& layer = layers[i];
    if (!layer.weight_grad_comm) continue;
    if (layer.weight_grad_comm->group != ParallelGroup::kData || layer.forward_gather) {
      close();
      continue;
    }
    if (open && open->weight_grad_comm->kind == layer.weight_grad_comm->kind) {
      // The bucket's collectives move down to this layer, which completes them later.
      layer.weight_grad_comm->size_bytes += open->weight_grad_comm->size_bytes;
      open->weight_grad_comm.reset();
      if (layer.step_gather && open->step_gather) {
        layer.step_gather->size_bytes += open->step_gather->size_bytes;
        open->step_gather.reset();
      }
    }
    open = &layer;
    if (layer.weight_grad_comm->size_bytes >= bucket_bytes) close();
  }
}

}  // namespace hfsim
