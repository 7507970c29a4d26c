#include "workloads/zoo-moe.h"

#include <string>

#include "workloads/zoo-transformers.h"

namespace hfsim {
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

}  // namespace hfsim
