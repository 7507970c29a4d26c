// One layer of a neural network as the simulator sees it: how many parameters it trains, how
// much arithmetic its forward pass does, and what tensor parallelism has to exchange for it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/collective-kind.h"
#include "workloads/operation-shape.h"

namespace hfsim {

/// A collective a layer states explicitly (imported traces: LIBRA, ASTRA-sim 1.0 text), instead
/// of one derived from params and activations. size_bytes follows collective-kind.h's convention
/// (the whole unsharded per-NPU buffer). Forward and input-gradient collectives run over the
/// tensor-parallel group, weight-gradient ones over the data-parallel group.
struct LayerComm {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  uint64_t size_bytes = 0;

  bool operator==(const LayerComm&) const = default;
};

/// A mixture-of-experts layer's routed experts (GShard, Switch Transformer, Mixtral,
/// DeepSeek-V3): each token goes to `top_k` of `experts` identical feed-forward networks. The
/// layer's own `params` include every routed expert; its `forward_flops_per_sample` covers the
/// rest (attention, router, shared experts), and the routed work is added per token routed.
struct RoutedExperts {
  uint32_t experts = 0;
  uint32_t top_k = 0;
  /// Parameters of one routed expert.
  uint64_t params_per_expert = 0;
  /// Forward FLOPs of one expert for one token (a multiply-add counting 2).
  double forward_flops_per_token = 0.0;
  /// Tokens routed per sample (the sequence length).
  uint64_t tokens_per_sample = 0;
  /// Elements of one token's hidden state, as dispatched to an expert and combined back.
  uint64_t token_elements = 0;

  bool operator==(const RoutedExperts&) const = default;
};

/// One operation of a layer's forward pass, as the roofline prices it (docs/scenario.md §8):
/// its arithmetic, the activation elements it reads and writes, and the parameters it holds.
/// Per sample and whole (before any tensor or context split). The fields from `kind` on give
/// its shape for a kernel-level compute model; their defaults say "unknown".
struct Operation {
  std::string name;
  double flops_per_sample = 0.0;
  double activation_elements_per_sample = 0.0;
  uint64_t params = 0;
  OperationKind kind = OperationKind::kUnknown;
  /// Tokens it processes per sample: a GEMM's rows (m per sample; for routed experts the
  /// token-rows over all experts, tokens x top_k), the attention's queries, the elementwise
  /// work's tokens. 0 when unknown.
  double tokens_per_sample = 0.0;
  /// kLinear, kLmHead, kRouter, kExpertLinear.
  OperationGemmShape gemm;
  /// kAttention.
  OperationAttentionShape attention;
  /// kElementwise and kEmbedding: activation elements read and written per token (times the
  /// activation's bytes per element: the bytes per token).
  double elements_per_token = 0.0;

  bool operator==(const Operation&) const = default;
};

/// What one layer keeps for its backward pass per sample, in bytes, whole (before any tensor or
/// context split), as Megatron-Core + Transformer Engine keep it (docs/memory.md §2), derived
/// from the layer's shapes as Korthikanti et al. 2022 (§4.1, eq. 1) derive s h (34 + 5 a s / h)
/// for GPT. Two sets: every GEMM input saved in 16 bits, and the linear layers' inputs saved in
/// FP8 (workload.training.precision "fp8").
struct SavedActivations {
  /// Kept whole on every rank of the tensor group unless sequence parallelism splits it: the
  /// norms' inputs and outputs (the column-parallel GEMMs' inputs), dropout masks, the router's
  /// scores.
  double replicated = 0.0;
  /// Split by tensor parallelism: queries, keys, values, the attention output, the MLP's
  /// intermediate activations.
  double split = 0.0;
  /// The routed experts' activations (tokens x top_k): split by tensor parallelism and scaled
  /// by the busiest rank's load (TrainingConfig::expert_load).
  double routed = 0.0;
  /// The attention core's own saved state, which selective recomputation drops: with a fused
  /// (FlashAttention) kernel its softmax statistics, 4 bytes per head and query; unfused, the
  /// 5 a s^2 of scores, softmax and dropout (Korthikanti et al. eq. 1).
  double fused_core = 0.0;
  double unfused_core = 0.0;

  bool operator==(const SavedActivations&) const = default;
};

struct Layer {
  std::string name;
  /// Trainable parameters (weights + biases + norm scales), exact.
  uint64_t params = 0;
  /// Floating-point operations of the forward pass for one sample (a multiply-add counts as 2).
  /// Backward costs the same again for input gradients and again for weight gradients.
  double forward_flops_per_sample = 0.0;
  /// Elements of the layer's output activation for one sample (e.g. seq_len * d_model).
  uint64_t output_elements_per_sample = 0;
  /// All-reduces of the output activation that Megatron-style tensor parallelism needs in the
  /// forward pass (2 per transformer block: attention and MLP; 1 for a vocab-parallel
  /// embedding; 0 for layers that are replicated). The backward pass needs as many.
  uint32_t tensor_parallel_all_reduces = 0;
  /// Whether full recomputation runs this layer's forward again in its backward, tensor-parallel
  /// collectives included. Megatron-LM checkpoints the transformer layers only
  /// (megatron/core/transformer/transformer_block.py, TransformerBlock._checkpointed_forward,
  /// and MultiTokenPredictionLayer._checkpointed_forward for MTP modules): the embedding, the
  /// final norm and the output layer keep their activations and run once. A custom layer is
  /// recomputed unless it says otherwise.
  bool checkpointed = true;
  /// Whether the layer's linear GEMMs stay in high precision (BF16) when the job trains in FP8:
  /// Megatron-LM's first_last_layers_bf16 keeps the first and last transformer layers in BF16
  /// (megatron/core/fp8_utils.py, is_first_last_bf16_layer). Such a layer holds no FP8 weight
  /// copies and saves its inputs in 16 bits.
  bool high_precision = false;
  /// Measured compute times for one NPU's share of one iteration (ns), when the user gives them
  /// instead of FLOPs (custom models, imported traces). When set they override the FLOP model.
  std::optional<double> forward_ns;
  std::optional<double> input_grad_ns;
  std::optional<double> weight_grad_ns;
  /// Explicit collectives per phase; when set they replace the derived ones of that phase.
  std::optional<LayerComm> forward_comm;
  std::optional<LayerComm> input_grad_comm;
  std::optional<LayerComm> weight_grad_comm;
  /// Routed experts, when this is a mixture-of-experts layer.
  std::optional<RoutedExperts> routed;
  /// The forward pass's operations: their parameters sum to params and, but for the routed
  /// experts' (kind kExpertLinear, whose FLOPs are the routed work at even routing), their FLOPs
  /// to forward_flops_per_sample. Empty: the layer is one operation of unknown shape.
  std::vector<Operation> operations;
  /// The roofline prices the layer as one operation, as if `operations` were empty: the zoo's
  /// rows that were priced whole before their operations were listed (embeddings, norms, LM
  /// heads, mixture-of-experts and latent-attention blocks) keep their figures.
  bool roofline_as_one = false;
  /// Of forward_flops_per_sample, the attention core's (scores and their weighted sum, O(L^2)):
  /// what selective recomputation computes again.
  double attention_flops_per_sample = 0.0;
  /// Activation bytes the layer keeps for its backward pass per sample, whole (before any
  /// tensor split), with 16-bit activations: s h (34 + 5 a s / h) for a transformer block
  /// (Korthikanti et al. 2022, eq. 1). 0: its output only.
  double activation_bytes_per_sample = 0.0;
  /// Of them, the attention core's 5 a s^2, which selective recomputation does not keep.
  double attention_activation_bytes_per_sample = 0.0;
  /// The architecture's own activation footprint (transformer blocks and LM heads): when set,
  /// the memory estimate uses it instead of the two fields above. `saved_fp8` is the same layer
  /// with its FP8 linear layers' inputs saved in FP8.
  std::optional<SavedActivations> saved;
  std::optional<SavedActivations> saved_fp8;
  /// Elements of the keys and values the layer's attention makes for one sample, whole (every
  /// key/value head, before any tensor split): what context parallelism passes around its ring.
  /// 0 for a layer without attention.
  uint64_t kv_elements_per_sample = 0;

  /// Parameters of all its routed experts (0 for a dense layer): part of `params`.
  uint64_t RoutedParams() const {
    return routed ? uint64_t{routed->experts} * routed->params_per_expert : 0;
  }

  bool HasTensorComm() const {
    return tensor_parallel_all_reduces > 0 || forward_comm || input_grad_comm;
  }

  bool operator==(const Layer&) const = default;
};

struct Model {
  std::string name;
  std::vector<Layer> layers;
  /// Attention heads, query and key/value (grouped-query attention): tensor parallelism splits
  /// them, so its degree must divide both. 0 when the model has no attention (or does not say).
  uint32_t attention_heads = 0;
  uint32_t kv_heads = 0;
  /// The transformer blocks are rows [first_block, first_block + blocks): what Megatron's
  /// pipeline split divides (workloads/graph/pipeline-split.h), the rows before them (the
  /// embedding) going with the first chunk and those after (final norm, head, multi-token
  /// prediction) with the last. 0 blocks: the model does not say (a layer list, a CNN), and
  /// the split counts every row as one.
  uint32_t first_block = 0;
  uint32_t blocks = 0;

  uint64_t TotalParams() const;
  double TotalForwardFlopsPerSample() const;
};

}  // namespace hfsim
