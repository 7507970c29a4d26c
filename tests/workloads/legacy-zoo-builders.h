// The zoo's transformer builders exactly as they were before the zoo was re-expressed through
// TransformerSpec (workloads/zoo-transformers.cc and zoo-moe.cc at commit 6a657a8), kept
// verbatim as the reference zoo-spec-identity-test.cc holds the new builders to, every number of
// every row bit for bit (one header: only that test includes it). Not part of the simulator.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/layer.h"

namespace hfsim::legacy {

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

// clang-format off
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
namespace {

uint64_t LinearParams(uint64_t in, uint64_t out) { return in * out + out; }

// Key/value heads: grouped-query attention has fewer than query heads; 0 means as many.
uint64_t KvHeads(const TransformerConfig& c) { return c.kv_heads == 0 ? c.heads : c.kv_heads; }

// Width of one token's keys (and as much again of values): d / heads per key/value head.
uint64_t KvWidth(const TransformerConfig& c) { return c.d_model / c.heads * KvHeads(c); }

// Scale and shift.
uint64_t LayerNormParams(uint64_t d) { return 2 * d; }

// BERT and GPT-2 blocks hold the same tensors under different names: Q, K, V and output
// projections (GPT-2 fuses Q, K, V into one d x 3d c_attn, which has the same count), two layer
// norms and the two MLP matrices. E.g. d = 768, ffn = 3072: 4 * 590,592 + 2 * 1,536 + 2,362,368 +
// 2,360,064 = 7,087,872 (12 d^2 + 13 d).
uint64_t BlockParams(const TransformerConfig& c) {
  const uint64_t d = c.d_model;
  return 4 * LinearParams(d, d) + 2 * LayerNormParams(d) + LinearParams(d, c.d_ffn) +
         LinearParams(c.d_ffn, d);
}

// Forward FLOPs of one block for one sequence of L tokens, a multiply-add counting 2:
//   matrices:  2 * L * (4 d^2 + 2 d ffn)   every token goes through Q, K, V, O and the MLP
//   attention: 2 * 2 * L^2 * d             scores Q K^T (L x L x d MACs) and their weighted sum
//                                          of V (another L x L x d), summed over all heads
// Biases, norms, softmax and GELU are elementwise and left out (< 1% at these widths). The
// causal mask of GPT is not exploited: like Megatron's estimate we count the full L x L.
// Worked example, GPT-2 small (d = 768, ffn = 3072) at L = 1024:
//   2 * 1024 * (4 * 589,824 + 2 * 2,359,296) = 2 * 1024 * 7,077,888 = 14,495,514,624
//   4 * 1024^2 * 768                                                 =  3,221,225,472
//   per block                                                        = 17,716,740,096
// Computed in integers (exact: the largest, GPT-3 at L = 2048, is ~7.4e12 < 2^53).
uint64_t BlockForwardFlops(const TransformerConfig& c, uint64_t seq) {
  const uint64_t d = c.d_model;
  const uint64_t matrix_macs_per_token = 4 * d * d + 2 * d * c.d_ffn;
  return 2 * seq * matrix_macs_per_token + 2 * 2 * seq * seq * d;
}

}  // namespace

void SetBlockActivations(const TransformerConfig& c, uint64_t seq, Layer& block) {
  const double s = static_cast<double>(seq), h = static_cast<double>(c.d_model);
  const double a = c.heads;
  block.attention_flops_per_sample = 4.0 * s * s * h;
  block.attention_activation_bytes_per_sample = 5.0 * a * s * s;
  block.activation_bytes_per_sample = 34.0 * s * h + block.attention_activation_bytes_per_sample;
  // A key and a value of d / heads per key/value head (grouped-query attention has fewer).
  block.kv_elements_per_sample = 2 * seq * KvWidth(c);
}

void SetBlockOperations(const TransformerConfig& c, uint64_t seq, bool gated, Layer& block) {
  const double s = static_cast<double>(seq), d = static_cast<double>(c.d_model);
  const double f = static_cast<double>(c.d_ffn);
  const uint64_t k = KvWidth(c);
  const double kw = static_cast<double>(k);
  const double in = gated ? 2.0 : 1.0;  // MLP input matrices: gate and up, or one
  const uint64_t dm = c.d_model, fm = c.d_ffn;
  std::vector<Operation>& ops = block.operations;
  ops.clear();
  ops.push_back({"qkv", 2 * s * d * (d + 2 * kw), s * d + s * (d + 2 * kw), dm * (dm + 2 * k)});
  // FlashAttention never writes the L x L scores: it reads Q, K, V and writes the output.
  ops.push_back({"attention", block.attention_flops_per_sample, s * (d + 2 * kw) + s * d, 0});
  ops.push_back({"projection", 2 * s * d * d, 2 * s * d, dm * dm});
  ops.push_back({"mlp_in", 2 * s * d * f * in, s * d + in * s * f,
                 static_cast<uint64_t>(in) * dm * fm});
  ops.push_back({"mlp_out", 2 * s * f * d, s * f + s * d, fm * dm});
  // Two norms (read and write s d each), two residual adds (read two, write one), the MLP's
  // activation (GELU reads and writes s ffn; SwiGLU reads two and writes one), with the
  // biases and norm scales; and whatever arithmetic the matrices leave (none in the zoo).
  double flops = 0.0;
  uint64_t params = 0;
  for (const Operation& op : ops) {
    flops += op.flops_per_sample;
    params += op.params;
  }
  ops.push_back({"elementwise", block.forward_flops_per_sample - flops,
                 4 * s * d + 6 * s * d + (gated ? 3.0 : 2.0) * s * f, block.params - params});
}

namespace {

// Rows shared by both families: the block stack, each block all-reducing twice under tensor
// parallelism (after the attention output projection and after the MLP's second matrix).
void AddBlocks(const TransformerConfig& c, uint64_t seq, const std::string& prefix, Model& model) {
  for (uint32_t i = 0; i < c.num_layers; ++i) {
    Layer block;
    block.name = prefix + std::to_string(i);
    block.params = BlockParams(c);
    block.forward_flops_per_sample = static_cast<double>(BlockForwardFlops(c, seq));
    block.output_elements_per_sample = seq * c.d_model;
    block.tensor_parallel_all_reduces = 2;
    SetBlockActivations(c, seq, block);
    SetBlockOperations(c, seq, false, block);
    model.layers.push_back(block);
  }
}


}  // namespace

// Embeddings are a table lookup, so 0 FLOPs; a vocab-parallel table needs one all-reduce to
// assemble each token's vector.
Layer EmbeddingRow(std::string name, uint64_t params, uint64_t seq, uint64_t d) {
  Layer row;
  row.name = std::move(name);
  row.params = params;
  row.output_elements_per_sample = seq * d;
  row.tensor_parallel_all_reduces = 1;
  return row;
}

void AddNormAndUntiedHead(uint64_t vocab, uint64_t d, uint64_t seq, Model& model) {
  Layer norm;
  norm.name = "norm";
  norm.params = d;
  norm.output_elements_per_sample = seq * d;
  model.layers.push_back(norm);
  // The LM head is a matrix of its own (not tied to the embedding). Vocab-parallel with a
  // parallel cross-entropy, it exchanges only per-token scalars: no activation all-reduce.
  Layer output;
  output.name = "output";
  output.params = vocab * d;
  output.forward_flops_per_sample = static_cast<double>(2 * seq * d * vocab);
  output.output_elements_per_sample = seq * d;
  model.layers.push_back(output);
}

Model BuildBert(const TransformerConfig& c, uint32_t sequence_length) {
  const uint64_t d = c.d_model;
  const uint64_t seq = sequence_length;
  Model model;
  model.name = c.name;
  model.attention_heads = c.heads;
  model.kv_heads = KvHeads(c);
  // Word, position and token-type tables, then the embedding layer norm.
  const uint64_t embedding_params =
      (c.vocab_size + c.max_positions + c.token_types) * d + LayerNormParams(d);
  model.layers.push_back(EmbeddingRow("embeddings(word+pos+type+LN)", embedding_params, seq, d));
  AddBlocks(c, seq, "encoder.layer.", model);
  // The pooler is a d x d dense layer applied to the [CLS] token only, so its output and its
  // FLOPs are those of one token, not L.
  Layer pooler;
  pooler.name = "pooler";
  pooler.params = LinearParams(d, d);
  pooler.forward_flops_per_sample = static_cast<double>(2 * d * d);
  pooler.output_elements_per_sample = d;
  model.layers.push_back(pooler);
  return model;
}

Model BuildGpt(const TransformerConfig& c, uint32_t sequence_length) {
  const uint64_t d = c.d_model;
  const uint64_t seq = sequence_length;
  Model model;
  model.name = c.name;
  model.attention_heads = c.heads;
  model.kv_heads = KvHeads(c);
  model.layers.push_back(EmbeddingRow("wte+wpe", (c.vocab_size + c.max_positions) * d, seq, d));
  AddBlocks(c, seq, "h.", model);
  // The LM head reuses wte (tied), so it adds no parameters, but its logits matmul
  // (L x d times d x vocab) is the single largest matmul of the small models. We book it on ln_f
  // rather than on a separate zero-parameter row so the rows stay one-to-one with the published
  // parameter list. GPT-2 small at L = 1024: 2 * 1024 * 768 * 50,257 = 79,047,426,048 FLOPs.
  // The output stays L x d like every transformer row: the logits are consumed by the loss on
  // the same device and never cross the fabric.
  Layer ln_f;
  ln_f.name = "ln_f";
  ln_f.params = LayerNormParams(d);
  ln_f.forward_flops_per_sample = static_cast<double>(2 * seq * d * c.vocab_size);
  ln_f.output_elements_per_sample = seq * d;
  model.layers.push_back(ln_f);
  return model;
}

// A Llama block: Q and O are d x d, K and V d x (kv_heads x head_dim), the SwiGLU MLP three
// d x ffn matrices (gate, up, down), two RMSNorm scales of d; no biases. Llama 3 8B (d = 4096,
// 32 heads, 8 KV heads of 128, ffn 14,336): 2 x 16,777,216 + 2 x 4,194,304 + 176,160,768 +
// 8,192 = 218,112,000.
uint64_t LlamaBlockParams(const TransformerConfig& c) {
  const uint64_t d = c.d_model;
  const uint64_t kv = KvWidth(c);
  return 2 * d * d + 2 * d * kv + 3 * d * c.d_ffn + 2 * d;
}

// Forward FLOPs of one Llama block for L tokens, counted as for GPT (BlockForwardFlops): every
// token through the projections and the MLP, 2 L (2 d^2 + 2 d kv + 3 d ffn), and attention over
// all query heads, 4 L^2 d (grouped keys and values save memory, not arithmetic).
uint64_t LlamaBlockForwardFlops(const TransformerConfig& c, uint64_t seq) {
  const uint64_t d = c.d_model;
  const uint64_t kv = KvWidth(c);
  return 2 * seq * (2 * d * d + 2 * d * kv + 3 * d * c.d_ffn) + 2 * 2 * seq * seq * d;
}

Model BuildLlama(const TransformerConfig& c, uint32_t sequence_length) {
  const uint64_t d = c.d_model;
  const uint64_t seq = sequence_length;
  Model model;
  model.name = c.name;
  model.attention_heads = c.heads;
  model.kv_heads = KvHeads(c);
  model.layers.push_back(EmbeddingRow("tok_embeddings", c.vocab_size * d, seq, d));
  for (uint32_t i = 0; i < c.num_layers; ++i) {
    Layer block;
    block.name = "layers.";
    block.name += std::to_string(i);
    block.params = LlamaBlockParams(c);
    block.forward_flops_per_sample = static_cast<double>(LlamaBlockForwardFlops(c, seq));
    block.output_elements_per_sample = seq * d;
    block.tensor_parallel_all_reduces = 2;  // after attention's O and the MLP's down matrix
    SetBlockActivations(c, seq, block);
    SetBlockOperations(c, seq, true, block);
    model.layers.push_back(block);
  }
  AddNormAndUntiedHead(c.vocab_size, d, seq, model);
  return model;
}

namespace {

// A SwiGLU expert: gate, up and down matrices of d x ffn, no biases.
uint64_t SwiGluParams(uint64_t d, uint64_t ffn) { return 3 * d * ffn; }

// Routed experts of `ffn`-wide SwiGLU networks: each token's work through one is its matrices'
// multiply-adds, 2 x 3 d ffn FLOPs.
RoutedExperts Routed(uint32_t experts, uint32_t top_k, uint64_t d, uint64_t ffn, uint64_t seq) {
  RoutedExperts routed;
  routed.experts = experts;
  routed.top_k = top_k;
  routed.params_per_expert = SwiGluParams(d, ffn);
  routed.forward_flops_per_token = static_cast<double>(2 * SwiGluParams(d, ffn));
  routed.tokens_per_sample = seq;
  routed.token_elements = d;
  return routed;
}

// Attention FLOPs and kept activations of a block, as for the dense zoo transformers
// (SetBlockActivations: Korthikanti et al.'s s h (34 + 5 a s / h), with `heads` as a). The
// experts' own activations are not added: a documented approximation. `kv_width`: elements of
// one token's keys and values together, over every head.
void SetActivations(uint64_t seq, uint64_t d, uint64_t heads, double attention_flops,
                    uint64_t kv_width, Layer& block) {
  const double s = static_cast<double>(seq);
  block.kv_elements_per_sample = seq * kv_width;
  block.attention_flops_per_sample = attention_flops;
  block.attention_activation_bytes_per_sample = 5.0 * static_cast<double>(heads) * s * s;
  block.activation_bytes_per_sample =
      34.0 * s * static_cast<double>(d) + block.attention_activation_bytes_per_sample;
}

}  // namespace

// Per layer: Llama 3's attention (Q, O of d x d; K, V of d x 1,024), a router of d x 8, two
// RMSNorm scales, 8 experts of 3 x 4,096 x 14,336 = 176,160,768: 41,943,040 + 32,768 + 8,192 +
// 1,409,286,144 = 1,451,270,144. Attention FLOPs are counted as for Llama (full L x L).
Model BuildMixtral8x7B(uint32_t sequence_length) {
  constexpr uint64_t d = 4096, ffn = 14336, vocab = 32000, kv = 1024;
  constexpr uint32_t layers = 32, experts = 8, top_k = 2;
  const uint64_t seq = sequence_length;
  Model model;
  model.name = "mixtral_8x7b";
  model.attention_heads = 32;
  model.kv_heads = 8;
  model.layers.push_back(EmbeddingRow("tok_embeddings", vocab * d, seq, d));
  for (uint32_t i = 0; i < layers; ++i) {
    Layer block;
    block.name = "layers." + std::to_string(i);
    const uint64_t attention = 2 * d * d + 2 * d * kv;
    const uint64_t router = d * experts;
    block.routed = Routed(experts, top_k, d, ffn, seq);
    block.params = attention + router + 2 * d + experts * block.routed->params_per_expert;
    block.forward_flops_per_sample =
        static_cast<double>(2 * seq * (attention + router) + 4 * seq * seq * d);
    block.output_elements_per_sample = seq * d;
    block.tensor_parallel_all_reduces = 2;  // after attention's O and after the experts
    SetActivations(seq, d, 32, 4.0 * seq * seq * d, 2 * kv, block);
    model.layers.push_back(block);
  }
  AddNormAndUntiedHead(vocab, d, seq, model);
  return model;
}

// Multi-head latent attention per layer: query down (d x 1,536) and up (1,536 x 128 x 192)
// projections with a norm of 1,536; key/value down projection with the shared rotary key
// (d x (512 + 64)) and a norm of 512; key/value up projection (512 x 128 x (128 + 128)); output
// (128 x 128 x d): 187,107,328. Two RMSNorm scales of d. Dense layers: a SwiGLU of 18,432;
// MoE layers: one shared and 256 routed SwiGLU experts of 2,048, a router of 256 x d and its
// 256 bias terms. Attention FLOPs: every projection's multiply-adds per token, and per query
// head and token pair 192 (scores) + 128 (values) multiply-adds over the full L x L.
Model BuildDeepSeekV3(uint32_t sequence_length) {
  constexpr uint64_t d = 7168, heads = 128, q_rank = 1536, kv_rank = 512;
  constexpr uint64_t nope = 128, rope = 64, v_dim = 128;
  constexpr uint64_t dense_ffn = 18432, expert_ffn = 2048, vocab = 129280;
  constexpr uint32_t layers = 61, dense_layers = 3, experts = 256, top_k = 8, shared = 1;
  const uint64_t seq = sequence_length;
  const uint64_t attention = d * q_rank + q_rank + q_rank * heads * (nope + rope) +
                             d * (kv_rank + rope) + kv_rank + kv_rank * heads * (nope + v_dim) +
                             heads * v_dim * d;
  const uint64_t norms = kv_rank + q_rank;  // inside attention, no multiply-adds per weight
  const uint64_t attention_macs = attention - norms;
  const uint64_t score_macs = seq * heads * ((nope + rope) + v_dim);  // per token
  Model model;
  model.name = "deepseek_v3";
  model.attention_heads = heads;
  model.kv_heads = heads;  // latent attention expands keys and values for every head
  model.layers.push_back(EmbeddingRow("tok_embeddings", vocab * d, seq, d));
  for (uint32_t i = 0; i < layers; ++i) {
    Layer block;
    block.name = "layers." + std::to_string(i);
    uint64_t macs_per_token = attention_macs + score_macs;
    block.params = attention + 2 * d;
    if (i < dense_layers) {
      block.params += SwiGluParams(d, dense_ffn);
      macs_per_token += SwiGluParams(d, dense_ffn);
    } else {
      const uint64_t router = experts * d;
      block.routed = Routed(experts, top_k, d, expert_ffn, seq);
      block.params += shared * SwiGluParams(d, expert_ffn) + router + experts +
                      experts * block.routed->params_per_expert;
      macs_per_token += shared * SwiGluParams(d, expert_ffn) + router;
    }
    block.forward_flops_per_sample = static_cast<double>(2 * seq * macs_per_token);
    block.output_elements_per_sample = seq * d;
    block.tensor_parallel_all_reduces = 2;
    // Latent attention expands a key of 128 + 64 and a value of 128 for every head, and ring
    // attention passes those on.
    SetActivations(seq, d, heads, 2.0 * static_cast<double>(seq * score_macs),
                   heads * (nope + rope + v_dim), block);
    model.layers.push_back(block);
  }
  AddNormAndUntiedHead(vocab, d, seq, model);
  return model;
}

#pragma GCC diagnostic pop
// clang-format on

}  // namespace hfsim::legacy
