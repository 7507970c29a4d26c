// A transformer described by its hyper-parameters: dense or mixture-of-experts, multi-head,
// grouped-query or multi-head latent attention, decoder or encoder. BuildTransformer
// (transformer-model.h) turns one into the rows of a Model; the zoo's transformers
// (zoo-transformers.h, zoo-moe.h) and Hugging Face configs (hf-config.h) are given as specs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hfsim {

/// The MLP's activation function. It changes no count (the elementwise work is counted per
/// element, not per operation); it is kept so the model reads as published.
enum class Activation : uint8_t { kSilu, kGelu, kGeluTanh, kRelu };
/// LayerNorm (scale and shift: 2 parameters per element) or RMSNorm (a scale: 1).
enum class NormKind : uint8_t { kLayerNorm, kRmsNorm };
/// Rotary positions (no parameters) or a learned table of max_positions rows.
enum class PositionKind : uint8_t { kRotary, kLearned };
/// Row names and where the head goes:
///   kLlama "tok_embeddings", "layers.<i>", "norm", "output" (the LM head; 0 parameters when tied);
///   kGpt2  "wte+wpe", "h.<i>", "ln_f" (the final norm, carrying the tied LM head's logits FLOPs);
///   kBert  "embeddings(word+pos+type+LN)", "encoder.layer.<i>", "pooler" (an encoder: no final
///          norm, no LM head; a d x d pooler on the first token).
enum class RowLayout : uint8_t { kLlama, kGpt2, kBert };

std::string_view ToString(Activation activation);
std::string_view ToString(NormKind norm);
std::string_view ToString(PositionKind positions);
std::string_view ToString(RowLayout rows);

/// Mixture-of-experts layers (Mixtral, Qwen3-MoE, DeepSeek-V3): routed experts of expert_ffn,
/// each token to top_k of them, beside shared experts that every token goes through.
struct MoeSpec {
  uint32_t experts = 0;
  uint32_t top_k = 0;
  uint64_t expert_ffn = 0;
  uint32_t shared_experts = 0;
  /// Width of each shared expert (DeepSeek-V3: 2,048, as its routed ones).
  uint64_t shared_expert_ffn = 0;
  /// Layer i is a mixture-of-experts layer when i >= first_dense_layers, i % layer_frequency == 0
  /// (DeepSeek's first_k_dense_replace and moe_layer_freq, Megatron's --moe-layer-freq) and i is
  /// not in dense_layers (Qwen's mlp_only_layers). The others have a dense MLP of `ffn`.
  uint32_t first_dense_layers = 0;
  uint32_t layer_frequency = 1;
  std::vector<uint32_t> dense_layers{};
  /// A bias per routed expert in the router (DeepSeek-V3's e_score_correction_bias, counted as
  /// parameters as its checkpoint stores them).
  bool router_bias = false;

  bool operator==(const MoeSpec&) const = default;
};

/// Multi-head latent attention (DeepSeek-V2/V3): queries through a rank-q_lora_rank bottleneck
/// (0: a plain projection), keys and values from a rank-kv_lora_rank latent, each head's query
/// and key of qk_nope_head_dim + qk_rope_head_dim (the rotary part of the key shared by all
/// heads), its value of v_head_dim.
struct MlaSpec {
  uint64_t q_lora_rank = 0;
  uint64_t kv_lora_rank = 0;
  uint64_t qk_nope_head_dim = 0;
  uint64_t qk_rope_head_dim = 0;
  uint64_t v_head_dim = 0;

  bool operator==(const MlaSpec&) const = default;
};

struct TransformerSpec {
  std::string name;
  uint32_t layers = 0;
  uint64_t hidden = 0;
  /// Width of the dense MLP (every layer's, or the dense layers' of a mixture of experts).
  uint64_t ffn = 0;
  uint32_t heads = 0;
  /// Key/value heads (grouped-query attention); 0: as many as heads.
  uint32_t kv_heads = 0;
  /// Width of one head; 0: hidden / heads (Qwen3 and Gemma set their own).
  uint64_t head_dim = 0;
  uint64_t vocab = 0;
  /// A gated MLP (SwiGLU, GeGLU): gate and up matrices of hidden x ffn, then down.
  bool gated_mlp = true;
  Activation activation = Activation::kSilu;
  NormKind norm = NormKind::kRmsNorm;
  /// Biases of the Q, K, V projections (Qwen2), of the attention output projection, and of the
  /// MLP's (and experts') matrices. GPT-2 and BERT have all three.
  bool qkv_bias = false;
  bool output_bias = false;
  bool mlp_bias = false;
  /// A norm of head_dim on each head's queries and keys (Qwen3).
  bool qk_norm = false;
  /// The LM head shares the token embedding's matrix.
  bool tied_embeddings = false;
  PositionKind positions = PositionKind::kRotary;
  /// Rows of the learned position table (learned positions only).
  uint64_t max_positions = 0;
  /// Rows of a token-type (segment) table (BERT: 2).
  uint64_t token_types = 0;
  /// A norm right after the embeddings (BERT, BLOOM).
  bool embedding_norm = false;
  /// Attention masked to earlier tokens (decoders); an encoder attends both ways.
  bool causal = true;
  /// Tokens each query may attend to, 0: all. Windowed attention is not modelled: a model with a
  /// window is built only for sequences that fit in it (where it changes nothing).
  uint64_t sliding_window = 0;
  RowLayout rows = RowLayout::kLlama;
  std::optional<MoeSpec> moe{};
  std::optional<MlaSpec> mla{};
  /// Multi-token-prediction modules (DeepSeek-V3: 1), each a block of the last layer's kind with
  /// its own norms and projection, sharing the embedding and the LM head.
  uint32_t mtp_layers = 0;

  uint32_t KvHeads() const { return kv_heads == 0 ? heads : kv_heads; }
  uint64_t HeadDim() const { return head_dim == 0 ? hidden / heads : head_dim; }
  /// Whether layer i (0-based) has routed experts.
  bool IsMoeLayer(uint32_t layer) const;

  bool operator==(const TransformerSpec&) const = default;
};

/// Limits a spec must keep, so that every count stays exact in 64 bits.
struct TransformerLimits {
  static constexpr uint64_t kMaxLayers = 65536;
  static constexpr uint64_t kMaxHidden = uint64_t{1} << 18;
  static constexpr uint64_t kMaxFfn = uint64_t{1} << 20;
  static constexpr uint64_t kMaxHeads = 4096;
  static constexpr uint64_t kMaxHeadDim = 4096;
  static constexpr uint64_t kMaxVocab = uint64_t{1} << 24;
  static constexpr uint64_t kMaxPositions = uint64_t{1} << 24;
  static constexpr uint64_t kMaxExperts = 65536;
  static constexpr uint64_t kMaxSharedExperts = 64;
  static constexpr uint64_t kMaxMtpLayers = 16;
  /// A whole model's parameters (as for a custom layer's "params").
  static constexpr uint64_t kMaxParams = uint64_t{1} << 50;
  /// Tokens per sample (as the scenario's sequence_length_tokens).
  static constexpr uint64_t kMaxSequence = uint64_t{1} << 20;
};

/// A problem with a spec: the field ("kv_heads", "moe.top_k") and what is wrong with its value
/// and what is accepted.
struct SpecProblem {
  std::string field;
  std::string message;
};

/// The first problem of `spec` (ranges, divisibility, combinations that mean nothing), or nullopt
/// when BuildTransformer can build it.
std::optional<SpecProblem> CheckTransformerSpec(const TransformerSpec& spec);

/// Why `spec` cannot be built for sequences of `tokens`, or nullopt: a sequence longer than
/// the sliding window (windowed attention is not modelled), or outside 1 to kMaxSequence.
std::optional<std::string> CheckSequenceLength(const TransformerSpec& spec, uint64_t tokens);

}  // namespace hfsim
