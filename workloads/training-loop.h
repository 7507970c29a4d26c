// One training iteration as a sequence of per-layer compute and the communication it needs.
//
// Per NPU, with data parallelism D and tensor parallelism T (Megatron-style):
//   forward, layer by layer:   compute F_l, then the layer's tensor-parallel all-reduces of its
//                              output activation (blocking: the next layer needs them);
//   backward, in reverse:      input-gradient compute G_l, the matching tensor-parallel
//                              all-reduces of the activation gradient (blocking), weight-gradient
//                              compute W_l, then the data-parallel all-reduce of the layer's
//                              gradients (params/T elements).
// LIBRA's loop (OverlapMode::kNone) waits for every collective. With kBackward the gradient
// all-reduces run in the background, one at a time in the order their gradients become ready,
// while backward compute goes on; the iteration ends when both are done.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base/name-table.h"
#include "workloads/collective-kind.h"
#include "workloads/layer.h"
#include "workloads/time-number.h"

namespace hfsim {

class ComputeModel;

enum class OverlapMode { kNone, kBackward };
/// Scenario spellings (workload.training.overlap).
inline constexpr NameTable<OverlapMode, 2> kOverlapModeNames = {{
    {OverlapMode::kNone, "none"},
    {OverlapMode::kBackward, "backward"},
}};
inline std::string_view ToString(OverlapMode overlap) { return NameIn(kOverlapModeNames, overlap); }
/// What else runs beside compute, besides the gradient collectives (OverlapMode). Each is graph
/// structure the training generator writes (stage-program.h), so every engine runs it:
///   - tensor_parallel: a layer's tensor-parallel collectives run in chunks on a stream of their
///     own, pipelined with the layer's compute (Megatron's --tp-comm-overlap, Transformer
///     Engine's userbuffers);
///   - pipeline_sends: a stage's sends and receives run beside its compute, posted ahead
///     (Megatron's overlap_p2p_comm); otherwise each receive is posted when the stage reaches its
///     step and the stage's next compute waits for the send it just issued (Megatron's
///     _communicate with wait_on_reqs);
///   - parameter_gather: ZeRO-1/2's gathers of the updated parameters run in the background at
///     the start of the next iteration, each waited for only before its layer's first forward
///     (Megatron's distributed optimizer with overlap_param_gather);
///   - expert_all_to_all: in the steady 1F1B steps a forward step and the backward step after it
///     run merged, layer by layer, so that each micro-batch's expert dispatch and combine
///     all-to-alls run on a stream of their own beside the other's compute (Megatron's
///     overlap_moe_expert_parallel_comm, combined 1F1B), with one more warm-up forward.
/// The defaults are today's meaning of the strings "none" and "backward".
struct OverlapOptions {
  bool tensor_parallel = false;
  bool pipeline_sends = true;
  bool parameter_gather = false;
  bool expert_all_to_all = false;
  /// The scenario gave workload.training.overlap as an object (it is echoed as one).
  bool object_form = false;

  bool operator==(const OverlapOptions&) const = default;
};
/// The keys of workload.training.overlap's object form.
inline constexpr std::array<std::string_view, 5> kOverlapKeys = {
    "gradients", "parameter_gather", "tensor_parallel", "pipeline_sends", "expert_all_to_all"};
/// The object form's switches, in kOverlapKeys' order: what the echo writes and the summary names.
std::array<bool, kOverlapKeys.size()> OverlapSwitches(OverlapMode gradients,
                                                      const OverlapOptions& options);
/// How a report names a job's overlap: the string it was given ("none", "backward"), or for the
/// object form the switches that are on, joined by "+" ("none" when none is).
std::string OverlapSummary(OverlapMode gradients, const OverlapOptions& options);
/// Activation recomputation (Korthikanti et al. 2022): none; selective (the attention core is
/// computed again in backward instead of kept); full (every layer's forward again, only its
/// input kept).
enum class Recompute { kNone, kSelective, kFull };
/// Scenario spellings (workload.training.recompute).
inline constexpr NameTable<Recompute, 3> kRecomputeNames = {{
    {Recompute::kNone, "none"},
    {Recompute::kSelective, "selective"},
    {Recompute::kFull, "full"},
}};
inline std::string_view ToString(Recompute recompute) { return NameIn(kRecomputeNames, recompute); }
/// The process groups of a training job. Expert parallelism splits the data group: an expert
/// group holds the ranks whose routed experts together make the whole layer (they exchange
/// tokens), and the expert-data group the ranks holding the same experts (they reduce those
/// experts' gradients).
enum class ParallelGroup { kData, kTensor, kExpert, kExpertData };

struct TrainingConfig {
  /// Samples per iteration over all data-parallel replicas; each replica gets global / data.
  uint64_t global_batch_samples = 1;
  uint32_t data_parallel = 1;
  uint32_t tensor_parallel = 1;
  /// Context parallelism (ring attention): each sequence is cut into this many shares of its
  /// tokens, one per rank of a context group, which pass their keys and values around a ring.
  /// Every per-token cost divides by it; the parameters are replicated over it, so gradients
  /// are reduced over data x context ranks.
  uint32_t context_parallel = 1;
  uint32_t gradient_bytes_per_param = 2;
  uint32_t activation_bytes_per_element = 2;
  /// Peak arithmetic of one NPU in FLOP per ns (1 TFLOP/s = 1000 FLOP/ns).
  double peak_flops_per_ns = 0.0;
  /// Fraction of peak achieved, in (0, 1], for arithmetic and memory traffic alike.
  double compute_efficiency = 1.0;
  /// The NPU's memory (HBM) bandwidth in bytes per ns (= GB/s). Above 0, every operation takes
  /// the longer of its arithmetic and its memory traffic (a roofline); 0: memory traffic is
  /// free, every layer takes its FLOPs' time.
  double memory_bytes_per_ns = 0.0;
  /// Gradient collectives beside backward compute (workload.training.overlap's "gradients").
  OverlapMode overlap = OverlapMode::kNone;
  /// The other overlaps (workload.training.overlap's object form).
  OverlapOptions overlap_options;
  /// Megatron's sequence parallelism: each derived tensor-parallel all-reduce of an activation
  /// runs as an all-gather and a reduce-scatter of the same buffer (CommRequest::split).
  bool sequence_parallel = false;
  /// What the data-parallel replicas shard (ZeRO, Rajbhandari et al. 2020): 0 nothing (DDP:
  /// gradients all-reduced); 1 optimizer states and 2 also gradients (gradients
  /// reduce-scattered, each replica updates its shard, the updated parameters all-gathered
  /// after the step: the same bytes as the all-reduce, less memory); 3 also parameters (FSDP:
  /// each layer's parameters all-gathered before its forward and again before its backward,
  /// its gradients reduce-scattered).
  uint32_t zero_stage = 0;
  /// Bytes per parameter as gathered (ZeRO's parameter all-gathers) and as kept for compute.
  uint32_t parameter_bytes_per_param = 2;
  /// Optimizer state per parameter: mixed-precision Adam keeps fp32 master weights, momentum
  /// and variance, 12 bytes (ZeRO's K).
  uint32_t optimizer_bytes_per_param = 12;
  Recompute recompute = Recompute::kNone;
  /// Measured times (Layer::forward_ns, ...) are given for the whole iteration; a pass over
  /// one of the iteration's micro-batches takes this share of them: 1 / micro-batches when the
  /// loop is built for one micro-batch (the training graph's MicroBatchWork), so recomputation
  /// and the routed experts' shares are taken of the micro-batch's time.
  uint32_t measured_time_divisor = 1;
  /// Memory as Megatron-Core + Transformer Engine keep it (workloads/memory-estimate.h,
  /// docs/memory.md). Under FP8 (workload.training.precision "fp8") the linear layers save
  /// their inputs in FP8 and hold an FP8 copy of their weights and its transpose.
  bool fp8_linear_layers = false;
  /// The attention core keeps its L x L scores, softmax and dropout mask for backward (an
  /// unfused kernel, workload.training.attention "unfused": Korthikanti et al.'s 5 a s^2);
  /// otherwise (FlashAttention, fused attention) only the softmax statistics.
  bool attention_keeps_scores = false;
  /// Bytes per parameter of the gradient buffer the rank holds; 0: gradient_bytes_per_param.
  /// With a precision given, Megatron's FP32 main gradients (4), unless gradient_bytes_per_param
  /// is given.
  uint32_t gradient_buffer_bytes_per_param = 0;
  uint32_t GradientBufferBytes() const {
    return gradient_buffer_bytes_per_param > 0 ? gradient_buffer_bytes_per_param
                                               : gradient_bytes_per_param;
  }
  /// ZeRO-3: gather a layer's parameters while the layer before it computes (FSDP's forward
  /// and backward prefetch), on a stream of their own; otherwise just before it, blocking.
  bool prefetch_parameters = true;
  /// Expert parallelism: the routed experts of each mixture-of-experts layer are spread over
  /// this many ranks of the data group (it divides data_parallel and every layer's experts).
  uint32_t expert_parallel = 1;
  /// Routed tokens per expert relative to a perfectly even router. A capacity factor (token
  /// dropping, buffers padded to capacity: GShard, Switch) fixes it for every rank; dropless
  /// routing (Megatron's default, Mixtral, DeepSeek-V3) with a skewed router loads the busiest
  /// rank this much more than the mean, and every exchange and expert waits for it.
  double expert_load = 1.0;
  /// Gradient buckets (PyTorch DDP's bucket_cap_mb, DeepSpeed's reduce_bucket_size), bytes:
  /// consecutive layers' gradients (in backward order) are reduced together once they reach
  /// this size. 0: one collective per layer. Not with ZeRO-3, which reduces layer by layer.
  uint64_t bucket_bytes = 0;
  /// The kernel-level compute model (models/compute/, docs/compute-model.md), when a device
  /// preset is given without a compute_efficiency: every layer whose operations carry shapes is
  /// priced operation by operation (workloads/kernel-pricing.h); the others keep the roofline
  /// above (at the efficiency the loader sets, 1: the device's peak). Null: the roofline for
  /// every layer. Shared so that copying the config (every sweep point does) stays cheap.
  std::shared_ptr<const ComputeModel> kernel_model;
};

/// `count` back-to-back collectives of `size_bytes` each over the NPUs of `group`.
struct CommRequest {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  ParallelGroup group = ParallelGroup::kData;
  uint64_t size_bytes = 0;
  uint32_t count = 1;
  /// An all-reduce run as an all-gather and then a reduce-scatter of the same buffer (sequence
  /// parallelism): the same bytes on every link (each moves (n - 1)/n of the buffer, the
  /// all-reduce twice that), in two collectives.
  bool split = false;

  bool operator==(const CommRequest&) const = default;
};

struct LayerWork {
  std::string name;
  double forward_ns = 0.0;
  double input_grad_ns = 0.0;
  double weight_grad_ns = 0.0;
  std::optional<CommRequest> forward_comm;
  std::optional<CommRequest> input_grad_comm;
  std::optional<CommRequest> weight_grad_comm;
  /// ZeRO-3: the layer's parameters gathered before its forward and before its backward.
  std::optional<CommRequest> forward_gather;
  std::optional<CommRequest> backward_gather;
  /// ZeRO-1/2: the layer's updated parameters gathered after the optimizer step.
  std::optional<CommRequest> step_gather;
  /// Mixture of experts with expert parallelism: the token dispatch and combine all-to-alls of
  /// the forward pass (count 2) and of the input-gradient pass, over the expert group; and the
  /// routed experts' gradients over the expert-data group, with their ZeRO-1/2 gather.
  std::optional<CommRequest> forward_expert;
  std::optional<CommRequest> input_grad_expert;
  std::optional<CommRequest> expert_grad_comm;
  std::optional<CommRequest> expert_step_gather;
  /// Context parallelism: one rank's key/value block (its tokens' keys and values, its tensor
  /// slice), which ring attention passes on C - 1 times per pass; 0 without. Of the compute
  /// above, the attention core's share in forward and in input gradients (there with what
  /// recomputation adds to it), which runs as C blocks, one per key/value block (set only with
  /// context parallelism).
  uint64_t context_kv_bytes = 0;
  double attention_forward_ns = 0.0;
  double attention_input_grad_ns = 0.0;
  /// The share of forward_ns and of input_grad_ns spent in GEMMs: the compute a layer's
  /// tensor-parallel collectives hide behind when they overlap (OverlapOptions). 1 (all of it)
  /// unless the kernel-level model priced the layer: then its GEMM class's time over the pass's.
  double forward_gemm_share = 1.0;
  double input_grad_gemm_share = 1.0;
  /// Of the compute above, the routed experts' share of each pass: what Megatron's combined
  /// 1F1B runs as the layer's `mlp` node, between the dispatch and the combine (the rest, with
  /// the shared experts, is its `pre_dispatch_computation`). Set only for layers with an expert
  /// exchange and only with OverlapOptions::expert_all_to_all; by the routed experts' share of
  /// the layer's forward FLOPs.
  double expert_forward_ns = 0.0;
  double expert_input_grad_ns = 0.0;
  double expert_weight_grad_ns = 0.0;
};

struct TrainingIteration {
  std::vector<LayerWork> layers;
  OverlapMode overlap = OverlapMode::kNone;
  /// ZeRO-3 parameter gathers run ahead, on a stream of their own (TrainingConfig).
  bool prefetch_parameters = false;
};

/// The buffer of one token exchange (dispatch or combine all-to-all) of a layer's routed
/// experts, for `samples` per replica: every token's hidden state to each of its top-k experts,
/// on the busiest rank (expert_load), its share of the tokens (the tensor group splits them).
/// Unrounded, so that callers can check it against a limit before it is made an integer.
double ExpertExchangeBytes(const RoutedExperts& routed, const TrainingConfig& config,
                           uint64_t samples);

/// The work of one iteration for one NPU (all NPUs do the same under data x tensor parallelism;
/// under context parallelism each does its share of every sequence's tokens).
/// Preconditions (checked by the scenario loader): data_parallel divides global_batch_samples.
/// Gradients are not bucketed here (a pipeline buckets per stage): see BucketGradients.
TrainingIteration BuildTrainingIteration(const Model& model, const TrainingConfig& config);

/// Merges the derived gradient collectives of layers [first, last), and their step gathers,
/// into buckets of at least `bucket_bytes` in backward order (last layer first): each bucket's
/// collective moves to the layer that completes it (its lowest), sized as the sum; the last
/// bucket may be smaller. A collective of another kind (or a ZeRO-3 layer's) ends the bucket
/// before it. Nothing changes for 0.
void BucketGradients(std::vector<LayerWork>& layers, uint32_t first, uint32_t last,
                     uint64_t bucket_bytes);

// The timeline is generic over the number type `Time` (double, or a number carrying a gradient
// with respect to the bandwidths, as the optimiser needs: sim/optimize/time-gradient.h), so the
// timeline is defined once. `Time` needs +, +=, - (also with a double on either side),
// construction from double, and TimeMax (workloads/time-number.h).

/// How long each layer's communication takes (all `count` collectives together), from an engine.
template <typename Time>
struct BasicLayerCommTimes {
  Time forward_ns = 0.0;
  Time input_grad_ns = 0.0;
  Time weight_grad_ns = 0.0;
};
using LayerCommTimes = BasicLayerCommTimes<double>;

template <typename Time>
struct BasicIterationTimeline {
  Time total_ns = 0.0;
  Time forward_compute_ns = 0.0;
  Time input_grad_compute_ns = 0.0;
  Time weight_grad_compute_ns = 0.0;
  Time forward_comm_ns = 0.0;      ///< blocking, so all exposed
  Time input_grad_comm_ns = 0.0;   ///< blocking, so all exposed
  Time weight_grad_comm_ns = 0.0;  ///< busy time of the gradient collectives
  Time weight_grad_comm_exposed_ns = 0.0;
  /// Compute not split into passes: a parameter-server or gossip worker's local step. 0 for
  /// training (its passes are above) and for a lone collective.
  Time step_compute_ns = 0.0;

  Time ComputeNs() const {
    return forward_compute_ns + input_grad_compute_ns + weight_grad_compute_ns + step_compute_ns;
  }
  Time ExposedCommNs() const { return total_ns - ComputeNs(); }
};
using IterationTimeline = BasicIterationTimeline<double>;

/// Plays the iteration forward in time. comm_times[i] belongs to iteration.layers[i]. The loop
/// as LIBRA defines it, kept as the training graph's reference in tests: without ZeRO's
/// parameter gathers, which it refuses.
template <typename Time>
BasicIterationTimeline<Time> PlayIteration(
    const TrainingIteration& iteration, const std::vector<BasicLayerCommTimes<Time>>& comm_times) {
  if (comm_times.size() != iteration.layers.size()) {
    throw std::invalid_argument("PlayIteration: one LayerCommTimes per layer expected");
  }
  for (const LayerWork& layer : iteration.layers) {
    if (layer.forward_gather || layer.backward_gather || layer.step_gather) {
      throw std::invalid_argument("PlayIteration: no parameter gathers (ZeRO) in this timeline");
    }
  }
  BasicIterationTimeline<Time> timeline;
  Time now = 0.0;
  for (size_t i = 0; i < iteration.layers.size(); ++i) {
    const LayerWork& layer = iteration.layers[i];
    now += layer.forward_ns + comm_times[i].forward_ns;
    timeline.forward_compute_ns += layer.forward_ns;
    timeline.forward_comm_ns += comm_times[i].forward_ns;
  }
  Time network_free = now;  // when the background gradient channel is next idle
  for (size_t i = iteration.layers.size(); i-- > 0;) {
    const LayerWork& layer = iteration.layers[i];
    const BasicLayerCommTimes<Time>& comm = comm_times[i];
    now += layer.input_grad_ns + comm.input_grad_ns + layer.weight_grad_ns;
    timeline.input_grad_compute_ns += layer.input_grad_ns;
    timeline.input_grad_comm_ns += comm.input_grad_ns;
    timeline.weight_grad_compute_ns += layer.weight_grad_ns;
    timeline.weight_grad_comm_ns += comm.weight_grad_ns;
    if (iteration.overlap == OverlapMode::kNone) {
      now += comm.weight_grad_ns;
    } else {
      network_free = TimeMax(network_free, now) + comm.weight_grad_ns;
    }
  }
  timeline.total_ns = TimeMax(now, network_free);
  // Without overlap every gradient collective is exposed; with it, only the tail that runs on
  // after the last backward compute.
  timeline.weight_grad_comm_exposed_ns = iteration.overlap == OverlapMode::kNone
                                             ? timeline.weight_grad_comm_ns
                                             : timeline.total_ns - now;
  return timeline;
}

}  // namespace hfsim
