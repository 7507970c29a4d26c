#include "workloads/zoo-transformers.h"

#include <utility>

namespace hfsim {
namespace {

// What BERT and GPT-2 share: LayerNorm, every linear layer with a bias, a GELU MLP of 4 d (not
// gated), a learned position table.
TransformerSpec BertOrGpt(std::string name, uint32_t layers, uint64_t d, uint32_t heads,
                          uint64_t context) {
  TransformerSpec spec;
  spec.name = std::move(name);
  spec.layers = layers;
  spec.hidden = d;
  spec.ffn = 4 * d;
  spec.heads = heads;
  spec.gated_mlp = false;
  spec.norm = NormKind::kLayerNorm;
  spec.qkv_bias = spec.output_bias = spec.mlp_bias = true;
  spec.positions = PositionKind::kLearned;
  spec.max_positions = context;
  return spec;
}

}  // namespace

TransformerSpec BertSpec(std::string name, uint32_t layers, uint64_t d, uint32_t heads) {
  constexpr uint64_t kBertVocab = 30522;
  TransformerSpec spec = BertOrGpt(std::move(name), layers, d, heads, 512);
  spec.vocab = kBertVocab;
  spec.activation = Activation::kGelu;
  spec.token_types = 2;
  spec.embedding_norm = true;
  spec.causal = false;
  spec.rows = RowLayout::kBert;
  return spec;
}

TransformerSpec GptSpec(std::string name, uint32_t layers, uint64_t d, uint32_t heads,
                        uint64_t context) {
  constexpr uint64_t kGptVocab = 50257;
  TransformerSpec spec = BertOrGpt(std::move(name), layers, d, heads, context);
  spec.vocab = kGptVocab;
  spec.activation = Activation::kGeluTanh;  // GPT-2's "gelu_new"
  spec.tied_embeddings = true;
  spec.rows = RowLayout::kGpt2;
  return spec;
}

TransformerSpec Llama3Spec(std::string name, uint32_t layers, uint64_t d, uint64_t ffn,
                           uint32_t heads) {
  constexpr uint64_t kLlamaVocab = 128256;
  TransformerSpec spec;
  spec.name = std::move(name);
  spec.layers = layers;
  spec.hidden = d;
  spec.ffn = ffn;
  spec.heads = heads;
  spec.kv_heads = 8;
  spec.vocab = kLlamaVocab;
  return spec;  // the defaults: SwiGLU, RMSNorm, no biases, rotary, untied, llama rows
}

}  // namespace hfsim
