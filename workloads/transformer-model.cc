#include "workloads/transformer-model.h"

#include <string>
#include <utility>

#include "workloads/transformer-block.h"

namespace hfsim {
namespace {

uint64_t NormParams(const TransformerSpec& spec) {
  return spec.norm == NormKind::kLayerNorm ? 2 * spec.hidden : spec.hidden;
}

// A row priced whole by the roofline, as the zoo's non-block rows always were.
Layer Row(std::string name, uint64_t params, double flops, uint64_t output_elements) {
  Layer row;
  row.name = std::move(name);
  row.params = params;
  row.forward_flops_per_sample = flops;
  row.output_elements_per_sample = output_elements;
  row.roofline_as_one = true;
  // Not a transformer layer, so full recomputation leaves it alone (Layer::checkpointed).
  row.checkpointed = false;
  return row;
}

Operation Elementwise(std::string name, uint64_t params, double seq, double per_token) {
  Operation op;
  op.name = std::move(name);
  op.kind = OperationKind::kElementwise;
  op.tokens_per_sample = seq;
  op.elements_per_token = per_token;
  op.activation_elements_per_sample = seq * per_token;
  op.params = params;
  return op;
}

// A table lookup: `tables` rows read per token and summed into one written row of d. `params`:
// the tables it holds (0 for a shared one), of which it reads only the rows looked up.
Operation Lookup(uint64_t params, double seq, uint64_t d, uint64_t tables) {
  Operation op = Elementwise("embedding", params, seq, static_cast<double>((tables + 1) * d));
  op.kind = OperationKind::kEmbedding;
  return op;
}

// The logits: every token's hidden state times the vocab x d head, split by vocabulary under
// tensor parallelism (column-parallel). It reads the hidden states and writes the logits.
Operation LmHead(const TransformerSpec& spec, uint64_t seq, uint64_t params) {
  Operation op;
  op.name = "lm_head";
  op.kind = OperationKind::kLmHead;
  op.tokens_per_sample = static_cast<double>(seq);
  op.flops_per_sample = static_cast<double>(2 * seq * spec.hidden * spec.vocab);
  op.activation_elements_per_sample = static_cast<double>(seq * (spec.hidden + spec.vocab));
  op.params = params;
  op.gemm = {spec.hidden, spec.vocab, TensorSplit::kColumn, 1};
  return op;
}

// What a row holding the LM head keeps for backward per sample (docs/memory.md §2): the head's
// 16-bit input (it runs in BF16 under FP8 too), its norm's input when the row holds the norm,
// and the softmax the vocabulary-parallel cross entropy keeps in FP32 (Megatron's
// _VocabParallelCrossEntropy; the "inputs to output layer and CE loss" term, 4 s h (1 + V / h),
// of report_theoretical_memory in megatron/training/theoretical_memory_usage.py).
void SetHeadSavedActivations(const TransformerSpec& spec, uint64_t seq, bool with_norm,
                             Layer& row) {
  const double s = static_cast<double>(seq), d = static_cast<double>(spec.hidden);
  SavedActivations saved;
  saved.replicated = (with_norm ? 4.0 : 2.0) * s * d;
  saved.split = 4.0 * s * static_cast<double>(spec.vocab);
  row.saved = saved;
  row.saved_fp8 = saved;
}

// Embeddings are a table lookup, so 0 FLOPs; a vocab-parallel table needs one all-reduce to
// assemble each token's vector.
Layer EmbeddingRow(const TransformerSpec& spec, uint64_t seq) {
  static constexpr const char* kNames[] = {"tok_embeddings", "wte+wpe",
                                           "embeddings(word+pos+type+LN)"};
  const uint64_t d = spec.hidden;
  const bool learned = spec.positions == PositionKind::kLearned;
  const uint64_t tables = (spec.vocab + (learned ? spec.max_positions : 0) + spec.token_types) * d;
  const uint64_t norm = spec.embedding_norm ? NormParams(spec) : 0;
  Layer row = Row(kNames[static_cast<int>(spec.rows)], tables + norm, 0.0, seq * d);
  row.tensor_parallel_all_reduces = 1;
  const double s = static_cast<double>(seq);
  // It keeps the token ids (8-byte integers) and, in GPT-2 and BERT layouts, the mask of the
  // dropout after it: report_theoretical_memory's "input to embedding" and "dropout in
  // embedding layer" terms (megatron/training/theoretical_memory_usage.py).
  SavedActivations saved;
  saved.replicated = 8.0 * s + (spec.rows != RowLayout::kLlama ? s * static_cast<double>(d) : 0.0);
  row.saved = saved;
  row.saved_fp8 = saved;
  row.operations.push_back(
      Lookup(tables, s, d, 1 + (learned ? 1 : 0) + (spec.token_types > 0 ? 1 : 0)));
  if (spec.embedding_norm) {
    row.operations.push_back(Elementwise("norm", norm, s, 2.0 * static_cast<double>(d)));
  }
  return row;
}

// The final norm and the LM head (llama rows): "norm", then "output" holding the head's matrix
// unless it is tied to the embedding's.
void AddNormAndHead(const TransformerSpec& spec, uint64_t seq, Model& model) {
  const uint64_t d = spec.hidden;
  const double s = static_cast<double>(seq);
  Layer& norm = model.layers.emplace_back(Row("norm", NormParams(spec), 0.0, seq * d));
  norm.operations.push_back(Elementwise("norm", norm.params, s, 2.0 * static_cast<double>(d)));
  const uint64_t head = spec.tied_embeddings ? 0 : spec.vocab * d;
  Layer& output = model.layers.emplace_back(
      Row("output", head, static_cast<double>(2 * seq * d * spec.vocab), seq * d));
  output.operations.push_back(LmHead(spec, seq, head));
  SetHeadSavedActivations(spec, seq, false, output);
}

// GPT-2's tail: the LM head reuses wte (tied), so it adds no parameters, but its logits matmul is
// the largest of the small models. It is booked on ln_f rather than on a row of its own so that
// the rows stay one-to-one with the published parameter list.
void AddTiedNormHead(const TransformerSpec& spec, uint64_t seq, Model& model) {
  const uint64_t d = spec.hidden;
  Layer& ln_f = model.layers.emplace_back(
      Row("ln_f", NormParams(spec), static_cast<double>(2 * seq * d * spec.vocab), seq * d));
  ln_f.operations.push_back(
      Elementwise("norm", ln_f.params, static_cast<double>(seq), 2.0 * static_cast<double>(d)));
  ln_f.operations.push_back(LmHead(spec, seq, 0));
  SetHeadSavedActivations(spec, seq, true, ln_f);
}

// BERT's pooler: a d x d dense layer with bias and tanh applied to the [CLS] token only, so its
// output and its FLOPs are those of one token, not L.
void AddPooler(const TransformerSpec& spec, Model& model) {
  const uint64_t d = spec.hidden;
  Layer& pooler =
      model.layers.emplace_back(Row("pooler", d * d + d, static_cast<double>(2 * d * d), d));
  Operation linear;
  linear.name = "pooler";
  linear.kind = OperationKind::kLinear;
  linear.tokens_per_sample = 1.0;
  linear.flops_per_sample = pooler.forward_flops_per_sample;
  linear.activation_elements_per_sample = 2.0 * static_cast<double>(d);
  linear.params = d * d;
  linear.gemm = {d, d, TensorSplit::kReplicated, 1};
  pooler.operations.push_back(linear);
  pooler.operations.push_back(Elementwise("elementwise", d, 1.0, 2.0 * static_cast<double>(d)));
}

// DeepSeek-V3's multi-token prediction, module k: the next tokens' embeddings (the shared table)
// and the main model's hidden states, each normed, concatenated and projected back to d (eh_proj,
// column-parallel in Megatron-LM's multi_token_prediction.py), then a block of the last layer's
// kind; then its own norm and the shared LM head.
void AddMtpModule(const TransformerSpec& spec, uint32_t k, uint64_t seq, Model& model) {
  const uint64_t d = spec.hidden;
  const double s = static_cast<double>(seq);
  const std::string name = "mtp." + std::to_string(k);
  Layer module = BuildTransformerBlock(spec, spec.layers - 1, seq, name);
  const uint64_t norms = 2 * NormParams(spec);
  const uint64_t projection = 2 * d * d;
  module.params += norms + projection;
  module.forward_flops_per_sample += static_cast<double>(2 * seq * projection);
  // The lookup's all-reduce, then the block's two.
  module.tensor_parallel_all_reduces = 3;
  module.roofline_as_one = true;
  Operation eh_proj;
  eh_proj.name = "eh_proj";
  eh_proj.kind = OperationKind::kLinear;
  eh_proj.tokens_per_sample = s;
  eh_proj.flops_per_sample = static_cast<double>(2 * seq * projection);
  eh_proj.activation_elements_per_sample = s * static_cast<double>(3 * d);
  eh_proj.params = projection;
  eh_proj.gemm = {2 * d, d, TensorSplit::kColumn, 1};
  Operation& rest = module.operations.back();  // the block's elementwise rest takes the norms
  rest.params += norms;
  rest.elements_per_token += 4.0 * static_cast<double>(d);
  rest.activation_elements_per_sample = s * rest.elements_per_token;
  module.operations.insert(module.operations.begin(), {Lookup(0, s, d, 1), eh_proj});
  model.layers.push_back(std::move(module));
  Layer& output = model.layers.emplace_back(Row(
      name + ".output", NormParams(spec), static_cast<double>(2 * seq * d * spec.vocab), seq * d));
  output.operations.push_back(Elementwise("norm", output.params, s, 2.0 * static_cast<double>(d)));
  output.operations.push_back(LmHead(spec, seq, 0));
  SetHeadSavedActivations(spec, seq, true, output);
}

}  // namespace

Model BuildTransformer(const TransformerSpec& spec, uint32_t sequence_length) {
  const uint64_t seq = sequence_length;
  static constexpr const char* kBlockPrefix[] = {"layers.", "h.", "encoder.layer."};
  Model model;
  model.name = spec.name;
  model.attention_heads = spec.heads;
  model.kv_heads = spec.mla ? spec.heads : spec.KvHeads();
  model.layers.reserve(spec.layers + 3 + 2 * spec.mtp_layers);
  model.layers.push_back(EmbeddingRow(spec, seq));
  model.first_block = 1;
  model.blocks = spec.layers;
  const std::string prefix = kBlockPrefix[static_cast<int>(spec.rows)];
  for (uint32_t i = 0; i < spec.layers; ++i) {
    model.layers.push_back(BuildTransformerBlock(spec, i, seq, prefix + std::to_string(i)));
  }
  switch (spec.rows) {
    case RowLayout::kLlama:
      AddNormAndHead(spec, seq, model);
      break;
    case RowLayout::kGpt2:
      AddTiedNormHead(spec, seq, model);
      break;
    case RowLayout::kBert:
      AddPooler(spec, model);
      break;
  }
  for (uint32_t k = 0; k < spec.mtp_layers; ++k) AddMtpModule(spec, k, seq, model);
  return model;
}

void KeepEndLayersInHighPrecision(uint32_t first, uint32_t last, Model& model) {
  for (uint32_t i = 0; i < model.blocks; ++i) {
    if (i < first || i + last >= model.blocks) {
      model.layers[model.first_block + i].high_precision = true;
    }
  }
}

uint64_t ActiveParams(const Model& model) {
  uint64_t active = 0;
  for (const Layer& layer : model.layers) {
    active += layer.params;
    if (layer.routed) {
      active -=
          uint64_t{layer.routed->experts - layer.routed->top_k} * layer.routed->params_per_expert;
    }
  }
  return active;
}

}  // namespace hfsim
