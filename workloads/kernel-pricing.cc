#include "workloads/kernel-pricing.h"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace hfsim {
namespace {

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// A count of rows or tokens as the integer a kernel is launched with (at least 1).
uint64_t Rows(double rows) { return std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(rows))); }

GemmClass ClassOf(OperationKind kind) {
  switch (kind) {
    case OperationKind::kLmHead:
      return GemmClass::kLmHead;
    case OperationKind::kRouter:
      return GemmClass::kHighPrecision;
    default:
      return GemmClass::kLinear;
  }
}

const Operation* Find(const Layer& layer, std::string_view name, OperationKind kind) {
  for (const Operation& op : layer.operations) {
    if (op.name == name && op.kind == kind) return &op;
  }
  return nullptr;
}

// Transformer Engine's userbuffers name for a block's linear layer (models/compute/
// userbuffers.h), from the names BuildTransformerBlock gives its operations: Megatron builds the
// attention's QKV and output projection and the MLP's fc1 and fc2 with these buffer names
// (megatron/core/transformer/attention.py, mlp.py), and its TE wrapper switches the overlap off
// for any other name and for experts (extensions/transformer_engine.py, TELinear). A MoE block's
// shared experts and latent attention's other projections are left uncharged
// (docs/compute-model.md §5.1).
std::optional<UbLinear> UserbuffersLinearOf(const Operation& op) {
  if (op.kind != OperationKind::kLinear) return std::nullopt;
  if (op.name == "qkv") return UbLinear::kQkv;
  if (op.name == "projection") return UbLinear::kProj;
  if (op.name == "mlp_in") return UbLinear::kFc1;
  if (op.name == "mlp_out") return UbLinear::kFc2;
  return std::nullopt;
}

// A dense transformer block as BuildTransformerBlock lists it (qkv, attention, projection,
// mlp_in, mlp_out, elementwise): its dimensions for BlockElementwiseBytes. Rotary positions and
// no hidden dropout are assumed (the Llama-style blocks Megatron + TE train today); a GPT-3
// block's learned positions and dropout change its elementwise bytes by a few per cent.
std::optional<BlockDims> DenseBlockDims(const Layer& layer) {
  const Operation* qkv = Find(layer, "qkv", OperationKind::kLinear);
  const Operation* attention = Find(layer, "attention", OperationKind::kAttention);
  const Operation* mlp_in = Find(layer, "mlp_in", OperationKind::kLinear);
  const Operation* mlp_out = Find(layer, "mlp_out", OperationKind::kLinear);
  if (!qkv || !attention || !mlp_in || !mlp_out || layer.routed) return std::nullopt;
  if (!Find(layer, "projection", OperationKind::kLinear)) return std::nullopt;
  BlockDims dims;
  dims.hidden = qkv->gemm.in_features;
  dims.ffn = mlp_out->gemm.in_features;
  dims.gated = mlp_in->gemm.out_features == 2 * dims.ffn;
  dims.query_dim = uint64_t{attention->attention.heads} * attention->attention.qk_head_dim;
  dims.kv_dim = uint64_t{attention->attention.kv_heads} * attention->attention.qk_head_dim;
  dims.rope = true;
  dims.hidden_dropout = false;
  return dims;
}

}  // namespace

KernelPassTimes& KernelPassTimes::operator+=(const KernelPassTimes& other) {
  kernels += other.kernels;
  roofline_ns += other.roofline_ns;
  return *this;
}

std::optional<KernelLayerTimes> PriceLayerByKernels(const Layer& layer,
                                                    const ComputeModel& job_model,
                                                    const TrainingConfig& config,
                                                    uint64_t samples) {
  const bool shaped =
      std::any_of(layer.operations.begin(), layer.operations.end(),
                  [](const Operation& op) { return op.kind != OperationKind::kUnknown; });
  if (!shaped) return std::nullopt;
  // A layer kept in BF16 in an FP8 job (Layer::high_precision) is priced as the job would be
  // in BF16.
  std::optional<ComputeModel> bf16;
  const ComputeModel& model =
      layer.high_precision ? bf16.emplace(job_model.InHighPrecision()) : job_model;
  const uint32_t tensor = config.tensor_parallel;
  const uint32_t context = config.context_parallel;
  const auto batch = static_cast<double>(samples);
  // Token-wise work outside the blocks' own fusions (norms, lookups) is split over the tensor
  // group only by sequence parallelism.
  const double token_split = config.sequence_parallel ? tensor : 1.0;
  const double act_bytes = config.activation_bytes_per_element;
  const std::optional<BlockDims> dense = DenseBlockDims(layer);
  // Transformer Engine's userbuffers run beside a pass's GEMMs where the training graph overlaps
  // that pass's tensor-parallel collective (overlap.tensor_parallel with T > 1 chunks every pass
  // that has one: the layer's own, or its derived all-reduces; stage-program.cc) and TE overlaps
  // it at all: only with sequence parallelism (its Linear and LayerNormLinear set every ub_* flag
  // only with sequence_parallel). docs/compute-model.md §5.1.
  const bool userbuffers =
      config.overlap_options.tensor_parallel && tensor > 1 && config.sequence_parallel;
  const bool derived = layer.tensor_parallel_all_reduces > 0;
  const bool forward_overlapped = userbuffers && (layer.forward_comm.has_value() || derived);
  const bool backward_overlapped = userbuffers && (layer.input_grad_comm.has_value() || derived);
  KernelLayerTimes t;
  for (const Operation& op : layer.operations) {
    // Context parallelism gives each rank 1/C of every sequence's tokens.
    const double tokens = op.tokens_per_sample * batch / context;
    switch (op.kind) {
      case OperationKind::kLinear:
      case OperationKind::kLmHead:
      case OperationKind::kRouter:
      case OperationKind::kExpertLinear: {
        uint64_t in = op.gemm.in_features, out = op.gemm.out_features;
        if (op.gemm.split == TensorSplit::kColumn) out = CeilDiv(out, tensor);
        if (op.gemm.split == TensorSplit::kRow) in = CeilDiv(in, tensor);
        LinearOptions options;
        uint64_t rows = Rows(tokens);
        if (op.kind == OperationKind::kExpertLinear && op.gemm.groups > 1) {
          // The rank's experts (groups / E) share the tokens the expert group routes to them:
          // on even routing E x its own routed rows, the busiest rank expert_load times that.
          const uint64_t local = std::max<uint64_t>(1, op.gemm.groups / config.expert_parallel);
          options.batch = local;
          rows = Rows(tokens * config.expert_load / static_cast<double>(local));
        }
        const LinearGemms g = model.Linear(ClassOf(op.kind), rows, in, out, options);
        t.forward.kernels.Add(OpClass::kGemm, g.fprop.time_ns);
        t.input_grad.kernels.Add(OpClass::kGemm, g.dgrad.time_ns);
        t.weight_grad.kernels.Add(OpClass::kGemm, g.wgrad.time_ns);
        // The GEMMs TE overlaps run on the SMs its userbuffers kernels leave: what that adds is
        // its own class, so the GEMM class keeps the unshared time.
        const std::optional<UbLinear> named = UserbuffersLinearOf(op);
        if (named && (forward_overlapped || backward_overlapped)) {
          const LinearSmsTaken taken = DefaultUserbuffersSmsTaken(
              model.device(), *named, forward_overlapped, backward_overlapped);
          const LinearOverheadNs extra =
              model.LinearCommOverheadNs(ClassOf(op.kind), rows, in, out, options, taken);
          t.forward.kernels.Add(OpClass::kCommKernelOverhead, extra.fprop);
          t.input_grad.kernels.Add(OpClass::kCommKernelOverhead, extra.dgrad);
          t.weight_grad.kernels.Add(OpClass::kCommKernelOverhead, extra.wgrad);
        }
        break;
      }
      case OperationKind::kAttention: {
        const OperationAttentionShape& a = op.attention;
        AttentionShape shape;
        shape.batch = samples;
        shape.heads = std::max<uint32_t>(1, a.heads / tensor);
        shape.kv_heads = std::max<uint32_t>(1, a.kv_heads / tensor);
        shape.q_len = a.key_tokens;
        shape.kv_len = a.key_tokens;
        shape.head_dim = a.qk_head_dim;
        shape.v_head_dim = a.v_head_dim;
        shape.causal = a.causal;
        // Ring attention (load-balanced) gives each rank 1/C of the sequence's pairs, at the
        // rate of the whole sequence's kernel.
        const double forward = model.Attention(shape, Pass::kForward).time_ns / context;
        const double backward = model.Attention(shape, Pass::kBackward).time_ns / context;
        t.forward.kernels.Add(OpClass::kAttention, forward);
        t.input_grad.kernels.Add(OpClass::kAttention, backward);
        t.attention_forward_ns += forward;
        t.attention_backward_ns += backward;
        break;
      }
      case OperationKind::kElementwise: {
        if (dense) {
          const BlockParallel parallel{tensor, config.sequence_parallel};
          t.forward.kernels.Add(OpClass::kElementwise,
                                model.BlockElementwiseNs(*dense, parallel, tokens, Pass::kForward));
          t.input_grad.kernels.Add(
              OpClass::kElementwise,
              model.BlockElementwiseNs(*dense, parallel, tokens, Pass::kBackward));
          break;
        }
        // Inside a block most of these bytes are of the MLP's (experts') width, which tensor
        // parallelism splits; outside, token-wise norms split only with sequence parallelism.
        const double split = layer.tensor_parallel_all_reduces >= 2 ? tensor : token_split;
        const double bytes = op.elements_per_token * tokens * act_bytes / split;
        t.forward.kernels.Add(OpClass::kElementwise, model.ElementwiseNs(bytes));
        t.input_grad.kernels.Add(OpClass::kElementwise, model.ElementwiseNs(1.5 * bytes));
        break;
      }
      case OperationKind::kEmbedding: {
        const double bytes = op.elements_per_token * tokens * act_bytes / token_split;
        t.forward.kernels.Add(OpClass::kElementwise, model.ElementwiseNs(bytes));
        t.weight_grad.kernels.Add(OpClass::kElementwise, model.ElementwiseNs(bytes));
        break;
      }
      case OperationKind::kUnknown: {
        // The roofline's own terms for one operation, at the config's rates.
        const double share = batch / (static_cast<double>(tensor) * context);
        double ns =
            op.flops_per_sample * share / (config.peak_flops_per_ns * config.compute_efficiency);
        if (config.memory_bytes_per_ns > 0) {
          const double bytes =
              op.activation_elements_per_sample * share * act_bytes +
              static_cast<double>(op.params) / tensor * config.parameter_bytes_per_param;
          ns = std::max(ns, bytes / (config.memory_bytes_per_ns * config.compute_efficiency));
        }
        t.forward.roofline_ns += ns;
        t.input_grad.roofline_ns += ns;
        if (op.params > 0) t.weight_grad.roofline_ns += ns;
        break;
      }
    }
  }
  return t;
}

bool SameKernelPricing(const Layer& a, const Layer& b) {
  // Every field of a Layer that PriceLayerByKernels (and DenseBlockDims) reads: keep in step.
  // Of the given collectives only whether there is one (the pass's userbuffers).
  return a.tensor_parallel_all_reduces == b.tensor_parallel_all_reduces &&
         a.high_precision == b.high_precision && a.routed.has_value() == b.routed.has_value() &&
         a.forward_comm.has_value() == b.forward_comm.has_value() &&
         a.input_grad_comm.has_value() == b.input_grad_comm.has_value() &&
         a.operations == b.operations;
}

std::optional<KernelLayerTimes> KernelLayerMemo::Price(const Layer& layer) {
  // The entry found last first (a model's blocks come back to back), then the others.
  const size_t count = m_entries.size();
  for (size_t i = 0; i < count; ++i) {
    const size_t at = (m_last + i) % count;
    const Entry& entry = m_entries[at];
    if (entry.layer == &layer || SameKernelPricing(*entry.layer, layer)) {
      m_last = at;
      return entry.times;
    }
  }
  ++m_priced;
  std::optional<KernelLayerTimes> times =
      PriceLayerByKernels(layer, *m_model, *m_config, m_samples);
  if (count < kMaxDistinct) {
    m_entries.push_back({&layer, times});
    m_last = count;
  }
  return times;
}

ComputeBreakdown KernelComputeBreakdown(const Model& model, const TrainingConfig& config) {
  ComputeBreakdown out;
  const TrainingIteration iteration = BuildTrainingIteration(model, config);
  const uint64_t samples = config.global_batch_samples / config.data_parallel;
  KernelLayerMemo memo(*config.kernel_model, config, samples);
  for (size_t i = 0; i < model.layers.size(); ++i) {
    const Layer& layer = model.layers[i];
    const LayerWork& work = iteration.layers[i];
    const bool measured = layer.forward_ns || layer.input_grad_ns || layer.weight_grad_ns;
    const std::optional<KernelLayerTimes> priced =
        measured ? std::nullopt : memo.Price(layer);
    if (!priced) {
      out.roofline_ns += work.forward_ns + work.input_grad_ns + work.weight_grad_ns;
      continue;
    }
    KernelPassTimes all = priced->forward;
    all += priced->input_grad;
    all += priced->weight_grad;
    if (config.recompute == Recompute::kFull) {
      if (layer.checkpointed) all += priced->forward;
    } else if (config.recompute == Recompute::kSelective) {
      all.kernels.Add(OpClass::kAttention, priced->attention_forward_ns);
    }
    out.kernels += all.kernels;
    out.roofline_ns += all.roofline_ns;
  }
  return out;
}

}  // namespace hfsim
