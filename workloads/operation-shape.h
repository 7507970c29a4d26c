// What a kernel-level compute model needs to know about one operation of a layer beyond its FLOPs
// and bytes: what kind of kernel it is, and for a matrix multiply or an attention core its shape.
// Part of Operation (workloads/layer.h); every field defaults to "shape unknown".
#pragma once

#include <cstdint>
#include <string_view>

namespace hfsim {

/// The kind of kernel an operation is. The GEMM kinds differ in how Megatron-LM with
/// Transformer Engine runs them under FP8: the linear layers of a transformer block (TE's
/// Linear, LayerNormLinear, GroupedLinear) run in FP8; the LM head (Megatron's own
/// ColumnParallelLinear) and the router stay in BF16 (or FP32).
enum class OperationKind : uint8_t {
  kUnknown,       ///< no shape given (custom layers, CNNs): only its FLOPs and bytes are known
  kLinear,        ///< a linear layer's GEMM (projections, MLP matrices, shared experts)
  kAttention,     ///< the attention core: scores, softmax and the weighted sum of values
  kElementwise,   ///< norms, activation functions, residual adds, biases: bandwidth-bound
  kEmbedding,     ///< a table lookup
  kLmHead,        ///< the logits GEMM
  kRouter,        ///< a mixture-of-experts router's gating GEMM
  kExpertLinear,  ///< a routed expert's GEMM, grouped over the experts
};

/// "linear", "attention", ...: the name reports and messages use.
std::string_view ToString(OperationKind kind);

/// Whether Transformer Engine runs the operation's GEMMs in FP8 when training in FP8 (the linear
/// layers of the blocks and the routed experts; not the LM head or the router).
inline bool RunsInFp8UnderTransformerEngine(OperationKind kind) {
  return kind == OperationKind::kLinear || kind == OperationKind::kExpertLinear;
}

/// How Megatron-style tensor parallelism over t ranks splits a GEMM's weight: by output features
/// (column-parallel: each rank computes n / t of them), by input features (row-parallel: k / t,
/// the partial sums reduced afterwards), or not at all (every rank computes the whole GEMM).
enum class TensorSplit : uint8_t { kReplicated, kColumn, kRow };

std::string_view ToString(TensorSplit split);

/// A GEMM of m x k activations by a k x n weight, m = Operation::tokens_per_sample x samples.
struct OperationGemmShape {
  uint64_t in_features = 0;   ///< k
  uint64_t out_features = 0;  ///< n
  TensorSplit split = TensorSplit::kReplicated;
  /// Weight matrices the m rows are spread over: the experts of a grouped GEMM (each gets
  /// m / groups rows on even routing); 1 for a plain GEMM.
  uint32_t groups = 1;

  bool operator==(const OperationGemmShape&) const = default;
};

/// An attention core over Operation::tokens_per_sample queries per sample. Tensor parallelism
/// splits its heads (query and key/value alike).
struct OperationAttentionShape {
  uint32_t heads = 0;
  /// Key/value heads: fewer than `heads` under grouped-query attention (1: multi-query).
  uint32_t kv_heads = 0;
  /// Width of one head's queries and keys, and of its values (equal except under multi-head
  /// latent attention: 128 + 64 and 128 for DeepSeek-V3).
  uint32_t qk_head_dim = 0;
  uint32_t v_head_dim = 0;
  /// Keys each query is scored against, before any causal mask (the sequence length).
  uint64_t key_tokens = 0;
  /// A causal mask (decoders): a kernel that skips the masked half does half the score work.
  /// The FLOPs of the operation and of Layer::attention_flops_per_sample count the full square.
  bool causal = false;

  bool operator==(const OperationAttentionShape&) const = default;
};

}  // namespace hfsim
