#include "workloads/transformer-block.h"

#include <utility>
#include <vector>

namespace hfsim {
namespace {

uint64_t NormParams(NormKind norm, uint64_t width) {
  return norm == NormKind::kLayerNorm ? 2 * width : width;
}

// Matrices of a gated MLP: gate and up (hidden x ffn each), then down; else up and down.
uint64_t MlpInputs(const TransformerSpec& spec) { return spec.gated_mlp ? 2 : 1; }

// The sizes one block is made of, every count exact.
struct BlockSizes {
  bool moe = false;
  // Widths of one token's queries, keys and values over all heads, and of one head's query/key
  // and value.
  uint64_t q_width = 0, kv_width = 0;
  uint64_t qk_head = 0, v_head = 0;
  uint32_t kv_heads = 0;
  // Weight matrices of the attention (Q, K, V, O; or latent attention's five), and everything
  // else it holds: biases and norms.
  uint64_t attention_matrices = 0, attention_other = 0;
  // Weight matrices of the dense MLP, or of the router and the shared experts; their biases
  // and the router's.
  uint64_t mlp_matrices = 0, mlp_other = 0;
  // One routed expert: its parameters and its matrices' multiply-adds per token.
  uint64_t expert_params = 0, expert_macs = 0;
  uint64_t norms = 0;

  uint64_t Params(uint32_t experts) const {
    return attention_matrices + attention_other + mlp_matrices + mlp_other + norms +
           uint64_t{experts} * expert_params;
  }
};

BlockSizes Sizes(const TransformerSpec& spec, uint32_t layer) {
  BlockSizes b;
  const uint64_t d = spec.hidden;
  const uint64_t heads = spec.heads;
  b.moe = spec.IsMoeLayer(layer);
  if (spec.mla) {
    // Multi-head latent attention: query down (d x q_rank) with its norm and up (q_rank x heads
    // x (nope + rope)), or one query projection; key/value down with the shared rotary key
    // (d x (kv_rank + rope)), its norm, and up (kv_rank x heads x (nope + v)); output (heads x v
    // x d). Keys and values are expanded for every head.
    const MlaSpec& m = *spec.mla;
    b.qk_head = m.qk_nope_head_dim + m.qk_rope_head_dim;
    b.v_head = m.v_head_dim;
    b.kv_heads = spec.heads;
    b.q_width = heads * b.qk_head;
    b.kv_width = heads * b.qk_head;
    const uint64_t query =
        m.q_lora_rank > 0 ? d * m.q_lora_rank + m.q_lora_rank * b.q_width : d * b.q_width;
    b.attention_matrices = query + d * (m.kv_lora_rank + m.qk_rope_head_dim) +
                           m.kv_lora_rank * heads * (m.qk_nope_head_dim + m.v_head_dim) +
                           heads * m.v_head_dim * d;
    b.attention_other = NormParams(spec.norm, m.kv_lora_rank) +
                        (m.q_lora_rank > 0 ? NormParams(spec.norm, m.q_lora_rank) : 0);
  } else {
    b.qk_head = spec.HeadDim();
    b.v_head = b.qk_head;
    b.kv_heads = spec.KvHeads();
    b.q_width = heads * b.qk_head;
    b.kv_width = uint64_t{b.kv_heads} * b.qk_head;
    b.attention_matrices = d * b.q_width + 2 * d * b.kv_width + b.q_width * d;
    if (spec.qkv_bias) b.attention_other += b.q_width + 2 * b.kv_width;
    if (spec.output_bias) b.attention_other += d;
    if (spec.qk_norm) b.attention_other += 2 * NormParams(spec.norm, b.qk_head);
  }
  b.norms = 2 * NormParams(spec.norm, d);
  const uint64_t in = MlpInputs(spec);
  if (!b.moe) {
    b.mlp_matrices = in * d * spec.ffn + spec.ffn * d;
    if (spec.mlp_bias) b.mlp_other = in * spec.ffn + d;
    return b;
  }
  const MoeSpec& moe = *spec.moe;
  const uint64_t shared = uint64_t{moe.shared_experts} * moe.shared_expert_ffn;
  b.mlp_matrices = uint64_t{moe.experts} * d + in * d * shared + shared * d;
  if (moe.router_bias) b.mlp_other += moe.experts;
  if (spec.mlp_bias) b.mlp_other += moe.shared_experts * (in * moe.shared_expert_ffn + d);
  b.expert_macs = in * d * moe.expert_ffn + moe.expert_ffn * d;
  b.expert_params = b.expert_macs + (spec.mlp_bias ? in * moe.expert_ffn + d : 0);
  return b;
}

uint32_t RoutedExpertCount(const TransformerSpec& spec, const BlockSizes& b) {
  return b.moe ? spec.moe->experts : 0;
}

// A GEMM operation of `tokens` rows per sample through a k x n weight: 2 m k n FLOPs, it reads
// its input and writes its output.
Operation Gemm(std::string name, OperationKind kind, double tokens, uint64_t k, uint64_t n,
               TensorSplit split, uint64_t params, uint32_t groups = 1) {
  Operation op;
  op.name = std::move(name);
  op.kind = kind;
  op.tokens_per_sample = tokens;
  op.flops_per_sample = 2.0 * tokens * static_cast<double>(k) * static_cast<double>(n);
  op.activation_elements_per_sample = tokens * static_cast<double>(k + n);
  op.params = params;
  op.gemm = {k, n, split, groups};
  return op;
}

OperationAttentionShape AttentionOf(const TransformerSpec& spec, const BlockSizes& b,
                                    uint64_t seq) {
  return {spec.heads, b.kv_heads, static_cast<uint32_t>(b.qk_head), static_cast<uint32_t>(b.v_head),
          seq,        spec.causal};
}

// A dense block with standard attention: the operations the roofline has priced since it was
// written (qkv, attention, projection, mlp_in, mlp_out, elementwise), every figure computed by
// the same expressions in the same order, so that the zoo's numbers stay bit for bit.
void SetDenseBlockOperations(const TransformerSpec& spec, const BlockSizes& b, uint64_t seq,
                             Layer& block) {
  const double s = static_cast<double>(seq), d = static_cast<double>(spec.hidden);
  const double f = static_cast<double>(spec.ffn);
  const double qw = static_cast<double>(b.q_width);
  const uint64_t k = b.kv_width;
  const double kw = static_cast<double>(k);
  const bool gated = spec.gated_mlp;
  const double in = gated ? 2.0 : 1.0;  // MLP input matrices: gate and up, or one
  const uint64_t dm = spec.hidden, fm = spec.ffn, qm = b.q_width;
  std::vector<Operation>& ops = block.operations;
  ops.clear();
  auto add = [&](const char* name, double flops, double elements, uint64_t params,
                 OperationKind kind) -> Operation& {
    Operation& op = ops.emplace_back();
    op.name = name;
    op.flops_per_sample = flops;
    op.activation_elements_per_sample = elements;
    op.params = params;
    op.kind = kind;
    op.tokens_per_sample = s;
    return op;
  };
  add("qkv", 2 * s * d * (qw + 2 * kw), s * d + s * (qw + 2 * kw), dm * (qm + 2 * k),
      OperationKind::kLinear)
      .gemm = {dm, qm + 2 * k, TensorSplit::kColumn, 1};
  // FlashAttention never writes the L x L scores: it reads Q, K, V and writes the output.
  add("attention", block.attention_flops_per_sample, s * (qw + 2 * kw) + s * qw, 0,
      OperationKind::kAttention)
      .attention = AttentionOf(spec, b, seq);
  add("projection", 2 * s * qw * d, s * qw + s * d, qm * dm, OperationKind::kLinear).gemm = {
      qm, dm, TensorSplit::kRow, 1};
  add("mlp_in", 2 * s * d * f * in, s * d + in * s * f, static_cast<uint64_t>(in) * dm * fm,
      OperationKind::kLinear)
      .gemm = {dm, static_cast<uint64_t>(in) * fm, TensorSplit::kColumn, 1};
  add("mlp_out", 2 * s * f * d, s * f + s * d, fm * dm, OperationKind::kLinear).gemm = {
      fm, dm, TensorSplit::kRow, 1};
  // Two norms (read and write s d each), two residual adds (read two, write one), the MLP's
  // activation (GELU reads and writes s ffn; SwiGLU reads two and writes one), with the
  // biases and norm scales; and whatever arithmetic the matrices leave (none here). Norms on
  // queries and keys (Qwen3) read and write them once more.
  double flops = 0.0;
  uint64_t params = 0;
  for (const Operation& op : ops) {
    flops += op.flops_per_sample;
    params += op.params;
  }
  double elements = 4 * s * d + 6 * s * d + (gated ? 3.0 : 2.0) * s * f;
  double per_token = 10 * d + (gated ? 3.0 : 2.0) * f;
  if (spec.qk_norm) {
    elements += 2 * s * (qw + kw);
    per_token += 2 * (qw + kw);
  }
  add("elementwise", block.forward_flops_per_sample - flops, elements, block.params - params,
      OperationKind::kElementwise)
      .elements_per_token = per_token;
}

// Every other block (latent attention, routed experts): its operations with their shapes,
// priced whole by the roofline as before they were listed.
void SetOtherBlockOperations(const TransformerSpec& spec, const BlockSizes& b, uint64_t seq,
                             Layer& block) {
  const double s = static_cast<double>(seq);
  const uint64_t d = spec.hidden;
  const uint64_t heads = spec.heads;
  std::vector<Operation>& ops = block.operations;
  ops.clear();
  double per_token = 10.0 * static_cast<double>(d);  // two norms and two residual adds
  if (spec.mla) {
    const MlaSpec& m = *spec.mla;
    // Megatron-LM's MLA (multi_latent_attention.py): the down projections are replicated
    // ("duplicated") linear layers, the up projections column-parallel.
    if (m.q_lora_rank > 0) {
      ops.push_back(Gemm("q_down", OperationKind::kLinear, s, d, m.q_lora_rank,
                         TensorSplit::kReplicated, d * m.q_lora_rank));
      ops.push_back(Gemm("q_up", OperationKind::kLinear, s, m.q_lora_rank, b.q_width,
                         TensorSplit::kColumn, m.q_lora_rank * b.q_width));
      per_token += 2.0 * static_cast<double>(m.q_lora_rank);  // its norm
    } else {
      ops.push_back(
          Gemm("q", OperationKind::kLinear, s, d, b.q_width, TensorSplit::kColumn, d * b.q_width));
    }
    const uint64_t kv_down = m.kv_lora_rank + m.qk_rope_head_dim;
    const uint64_t kv_up = heads * (m.qk_nope_head_dim + m.v_head_dim);
    ops.push_back(Gemm("kv_down", OperationKind::kLinear, s, d, kv_down, TensorSplit::kReplicated,
                       d * kv_down));
    ops.push_back(Gemm("kv_up", OperationKind::kLinear, s, m.kv_lora_rank, kv_up,
                       TensorSplit::kColumn, m.kv_lora_rank * kv_up));
    per_token += 2.0 * static_cast<double>(m.kv_lora_rank);  // its norm
  } else {
    ops.push_back(Gemm("qkv", OperationKind::kLinear, s, d, b.q_width + 2 * b.kv_width,
                       TensorSplit::kColumn, d * (b.q_width + 2 * b.kv_width)));
    if (spec.qk_norm) per_token += 2.0 * static_cast<double>(b.q_width + b.kv_width);
  }
  const uint64_t v_width = heads * b.v_head;
  Operation& attention = ops.emplace_back();
  attention.name = "attention";
  attention.kind = OperationKind::kAttention;
  attention.tokens_per_sample = s;
  attention.flops_per_sample = block.attention_flops_per_sample;
  // It reads queries, keys and values and writes its output (FlashAttention: no scores).
  attention.activation_elements_per_sample =
      s * static_cast<double>(b.q_width + b.kv_width + uint64_t{b.kv_heads} * b.v_head + v_width);
  attention.attention = AttentionOf(spec, b, seq);
  ops.push_back(
      Gemm("projection", OperationKind::kLinear, s, v_width, d, TensorSplit::kRow, v_width * d));
  const uint64_t in = MlpInputs(spec);
  const double activation_reads = spec.gated_mlp ? 3.0 : 2.0;  // per element of the MLP's width
  if (!b.moe) {
    ops.push_back(Gemm("mlp_in", OperationKind::kLinear, s, d, in * spec.ffn, TensorSplit::kColumn,
                       in * d * spec.ffn));
    ops.push_back(
        Gemm("mlp_out", OperationKind::kLinear, s, spec.ffn, d, TensorSplit::kRow, spec.ffn * d));
    per_token += activation_reads * static_cast<double>(spec.ffn);
  } else {
    const MoeSpec& moe = *spec.moe;
    // Megatron's router and its gating GEMM are replicated over the tensor-parallel ranks; the
    // shared experts run as one MLP of their summed width; the routed experts' grouped GEMMs
    // get top_k rows per token.
    ops.push_back(Gemm("router", OperationKind::kRouter, s, d, moe.experts,
                       TensorSplit::kReplicated, uint64_t{moe.experts} * d));
    const uint64_t shared = uint64_t{moe.shared_experts} * moe.shared_expert_ffn;
    if (shared > 0) {
      ops.push_back(Gemm("shared_in", OperationKind::kLinear, s, d, in * shared,
                         TensorSplit::kColumn, in * d * shared));
      ops.push_back(
          Gemm("shared_out", OperationKind::kLinear, s, shared, d, TensorSplit::kRow, shared * d));
    }
    const double routed = s * moe.top_k;
    ops.push_back(Gemm("experts_in", OperationKind::kExpertLinear, routed, d, in * moe.expert_ffn,
                       TensorSplit::kColumn, uint64_t{moe.experts} * in * d * moe.expert_ffn,
                       moe.experts));
    ops.push_back(Gemm("experts_out", OperationKind::kExpertLinear, routed, moe.expert_ffn, d,
                       TensorSplit::kRow, uint64_t{moe.experts} * moe.expert_ffn * d, moe.experts));
    const double width =
        static_cast<double>(shared) + moe.top_k * static_cast<double>(moe.expert_ffn);
    // The activation over every expert's width, and each token copied to its top_k experts
    // and their outputs summed back (read and write both ways).
    per_token += activation_reads * width + 2.0 * static_cast<double>(d) * (1.0 + moe.top_k);
  }
  double flops = 0.0;
  uint64_t params = 0;
  for (const Operation& op : ops) {
    if (op.kind != OperationKind::kExpertLinear) flops += op.flops_per_sample;
    params += op.params;
  }
  Operation& rest = ops.emplace_back();
  rest.name = "elementwise";
  rest.kind = OperationKind::kElementwise;
  rest.tokens_per_sample = s;
  rest.flops_per_sample = block.forward_flops_per_sample - flops;
  rest.params = block.params - params;
  rest.elements_per_token = per_token;
  rest.activation_elements_per_sample = s * per_token;
}

// What the block keeps for its backward pass per sample, in bytes (docs/memory.md §2), as
// Megatron-Core's TransformerLayer built from Transformer Engine modules keeps it. `gemm_input`
// is the bytes per element of a linear layer's saved input: 2, or 1 under FP8 (TE's _Linear
// saves its input cast to FP8 for the weight-gradient GEMM). Everything else is 16-bit, but
// the softmax statistics and router scores (FP32). Korthikanti et al. 2022 §4.1 count the same
// tensors for GPT: with a GELU MLP of 4h, dropout, 16-bit inputs and an unfused core this is
// their s h (34 + 5 a s / h): 10 s h replicated, 24 s h split, 5 a s^2 core.
SavedActivations BlockSavedActivations(const TransformerSpec& spec, const BlockSizes& b,
                                       uint64_t seq, double gemm_input) {
  const double s = static_cast<double>(seq), h = static_cast<double>(spec.hidden);
  const double a = spec.heads;
  const double v_width = a * static_cast<double>(b.v_head);
  const double gated = spec.gated_mlp ? 2.0 : 1.0;
  // GPT-2 and BERT layouts train with hidden dropout (Korthikanti's GPT: a 1-byte mask after
  // the attention and after the MLP); Llama-layout models (Llama, Mistral, Qwen, DeepSeek)
  // without (their Megatron recipes set hidden_dropout 0).
  const bool dropout = spec.rows != RowLayout::kLlama;
  SavedActivations saved;
  // Each norm keeps its input (16-bit); its output is the next column-parallel GEMMs' saved
  // input (TE's LayerNormLinear casts it to FP8 in the norm kernel under FP8).
  saved.replicated = 2.0 * s * h + gemm_input * s * h;
  if (dropout) saved.replicated += 2.0 * s * h;  // the two 1-byte masks
  // Queries, keys and values, saved by the attention core in 16 bits; its output, saved by
  // the core and by the output projection (one tensor in 16 bits; under FP8 the projection
  // keeps its own FP8 copy beside the core's).
  saved.split = 2.0 * s * static_cast<double>(b.q_width + b.kv_width) +
                2.0 * s * static_cast<double>(b.kv_heads) * static_cast<double>(b.v_head) +
                2.0 * s * v_width + (gemm_input < 2.0 ? gemm_input * s * v_width : 0.0);
  if (spec.mla) {
    // The latents: each down projection's output is its norm's input (16-bit), and the norm's
    // output the up projection's saved input.
    const MlaSpec& m = *spec.mla;
    const double ranks = static_cast<double>(m.kv_lora_rank + m.q_lora_rank);
    saved.replicated += (2.0 + gemm_input) * s * ranks;
  }
  // FlashAttention-2 (flash_attn_interface.py, _flash_attn_forward) and cuDNN fused attention
  // keep the log-sum-exp of each row in FP32; an unfused core keeps softmax output (2 bytes),
  // dropout mask (1) and dropout output (2) per score (Korthikanti et al. eq. 1).
  saved.fused_core = 4.0 * a * s;
  saved.unfused_core = 5.0 * a * s * s;
  saved.replicated += 2.0 * s * h;  // the MLP's norm input
  if (!b.moe) {
    // fc1's input (the norm output), its output kept by the activation function for its
    // backward (gate and up for SwiGLU), the activation's output as fc2's input.
    const double f = static_cast<double>(spec.ffn);
    saved.replicated += gemm_input * s * h;
    saved.split += 2.0 * gated * s * f + gemm_input * s * f;
    return saved;
  }
  const MoeSpec& moe = *spec.moe;
  const double shared = static_cast<double>(uint64_t{moe.shared_experts} * moe.shared_expert_ffn);
  const double k = moe.top_k, fe = static_cast<double>(moe.expert_ffn);
  // The router (16-bit, replicated over the tensor group) keeps the norm output in 16 bits; the
  // shared experts' fc1 an FP8 copy of it under FP8. Routing scores in FP32 (Megatron's
  // TopKRouter computes its softmax / sigmoid in FP32), one per expert and token.
  saved.replicated += 2.0 * s * h + 4.0 * s * moe.experts;
  if (shared > 0.0) {
    if (gemm_input < 2.0) saved.replicated += gemm_input * s * h;
    saved.split += 2.0 * gated * s * shared + gemm_input * s * shared;
  }
  // Each token copied to its top_k experts: the permuted tokens as the grouped fc1's input,
  // fc1's output, the activation's output as fc2's input, and the experts' outputs, which the
  // unpermutation weights by the routing probabilities and keeps for their gradient.
  saved.routed = k * s * (gemm_input * h + 2.0 * gated * fe + gemm_input * fe + 2.0 * h);
  return saved;
}

}  // namespace

uint64_t TransformerBlockParams(const TransformerSpec& spec, uint32_t layer) {
  const BlockSizes b = Sizes(spec, layer);
  return b.Params(RoutedExpertCount(spec, b));
}

uint64_t TransformerBlockMatrixMacs(const TransformerSpec& spec, uint32_t layer) {
  const BlockSizes b = Sizes(spec, layer);
  return b.attention_matrices + b.mlp_matrices;
}

Layer BuildTransformerBlock(const TransformerSpec& spec, uint32_t layer, uint64_t seq,
                            std::string name) {
  const BlockSizes b = Sizes(spec, layer);
  Layer block;
  block.name = std::move(name);
  block.params = b.Params(RoutedExpertCount(spec, b));
  // Computed in integers, then converted once: exact while below 2^53 (every zoo model), and
  // the nearest double beyond, however the terms are grouped.
  const uint64_t core = 2 * seq * seq * spec.heads * (b.qk_head + b.v_head);
  block.forward_flops_per_sample =
      static_cast<double>(2 * seq * (b.attention_matrices + b.mlp_matrices) + core);
  block.output_elements_per_sample = seq * spec.hidden;
  // After the attention's output projection and after the MLP's (or experts') last matrix.
  block.tensor_parallel_all_reduces = 2;
  if (b.moe) {
    RoutedExperts& routed = block.routed.emplace();
    routed.experts = spec.moe->experts;
    routed.top_k = spec.moe->top_k;
    routed.params_per_expert = b.expert_params;
    routed.forward_flops_per_token = static_cast<double>(2 * b.expert_macs);
    routed.tokens_per_sample = seq;
    routed.token_elements = spec.hidden;
  }
  // Korthikanti et al.'s s h (34 + 5 a s / h) bytes with a = heads, h = hidden; the experts'
  // own activations are not added (a documented approximation).
  const double s = static_cast<double>(seq), h = static_cast<double>(spec.hidden);
  const double a = spec.heads;
  block.attention_flops_per_sample = static_cast<double>(core);
  block.attention_activation_bytes_per_sample = 5.0 * a * s * s;
  block.activation_bytes_per_sample = 34.0 * s * h + block.attention_activation_bytes_per_sample;
  block.kv_elements_per_sample = seq * b.kv_heads * (b.qk_head + b.v_head);
  block.saved = BlockSavedActivations(spec, b, seq, 2.0);
  block.saved_fp8 = BlockSavedActivations(spec, b, seq, 1.0);
  if (!b.moe && !spec.mla) {
    SetDenseBlockOperations(spec, b, seq, block);
  } else {
    SetOtherBlockOperations(spec, b, seq, block);
    block.roofline_as_one = true;
  }
  return block;
}

}  // namespace hfsim
