// Transformer models of the zoo (BERT encoders, GPT decoders), built from their hyper-parameters.
#pragma once

#include <cstdint>
#include <string>

#include "workloads/layer.h"

namespace hfsim {

/// Hyper-parameters of a BERT- or GPT-2-style transformer. Pre- versus post-norm placement does
/// not change any count, so one description serves both families.
struct TransformerConfig {
  std::string name;
  uint32_t num_layers = 0;
  uint64_t d_model = 0;
  /// Hidden width of the MLP (4 * d_model in every zoo model).
  uint64_t d_ffn = 0;
  uint64_t vocab_size = 0;
  /// Rows of the learned position embedding, i.e. the context length the model was trained with.
  uint64_t max_positions = 0;
  /// Rows of the segment embedding (BERT: 2; GPT: none).
  uint64_t token_types = 0;
  /// Query heads, and (Llama) key/value heads: grouped-query attention shares each key and
  /// value head among heads / kv_heads query heads; 0 means as many as query heads.
  uint32_t heads = 0;
  uint32_t kv_heads = 0;
};

/// A transformer block's attention FLOPs and the activations it keeps for backward
/// (Korthikanti et al. 2022, eq. 1: s h (34 + 5 a s / h) bytes per sequence with 16-bit
/// activations, 5 a s^2 of them the attention core's), and its keys and values (2 s kv_heads
/// d / heads elements), from d_model, heads and `seq` tokens.
void SetBlockActivations(const TransformerConfig& c, uint64_t seq, Layer& block);

/// A transformer block's operations for the roofline (Layer::operations): the Q/K/V
/// projection, the attention core (FlashAttention: reads Q, K, V, writes its output), the
/// output projection, the MLP's input matrices (two when `gated`, SwiGLU) and output matrix,
/// and the elementwise rest (norms, residual adds, the activation function, biases). Needs
/// forward_flops_per_sample, attention_flops_per_sample and params set.
void SetBlockOperations(const TransformerConfig& c, uint64_t seq, bool gated, Layer& block);

/// An embedding table of `params` (0 FLOPs; vocab-parallel, one all-reduce of its s x d output
/// under tensor parallelism).
Layer EmbeddingRow(std::string name, uint64_t params, uint64_t seq, uint64_t d);

/// Llama-style tail rows: "norm" (an RMSNorm scale of d) and "output", an LM head of its own
/// (vocab x d parameters, 2 s d vocab FLOPs of logits, which stay on the device).
void AddNormAndUntiedHead(uint64_t vocab, uint64_t d, uint64_t seq, Model& model);

/// BERT encoder as Hugging Face's BertModel (no pre-training heads): rows
/// "embeddings(word+pos+type+LN)", "encoder.layer.<i>", "pooler". `sequence_length` > 0 tokens.
Model BuildBert(const TransformerConfig& config, uint32_t sequence_length);

/// GPT-2-style decoder with the LM head tied to the token embedding: rows "wte+wpe", "h.<i>",
/// "ln_f" (which also carries the LM head's logits FLOPs). `sequence_length` > 0 tokens.
Model BuildGpt(const TransformerConfig& config, uint32_t sequence_length);

/// Llama-style decoder (Llama 3): grouped-query attention, a SwiGLU MLP of three d x ffn
/// matrices, RMSNorm (a scale only), no biases, rotary positions (no table) and an LM head of
/// its own. Rows "tok_embeddings", "layers.<i>", "norm", "output" (the LM head, with its logits
/// FLOPs). `sequence_length` > 0 tokens.
Model BuildLlama(const TransformerConfig& config, uint32_t sequence_length);

}  // namespace hfsim
