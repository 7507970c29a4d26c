#include "workloads/transformer-spec.h"

#include <fmt/format.h>

#include <algorithm>

#include "workloads/transformer-block.h"

namespace hfsim {

std::string_view ToString(Activation activation) {
  switch (activation) {
    case Activation::kSilu:
      return "silu";
    case Activation::kGelu:
      return "gelu";
    case Activation::kGeluTanh:
      return "gelu_tanh";
    case Activation::kRelu:
      return "relu";
  }
  return "silu";
}

std::string_view ToString(NormKind norm) {
  return norm == NormKind::kLayerNorm ? "layernorm" : "rmsnorm";
}

std::string_view ToString(PositionKind positions) {
  return positions == PositionKind::kLearned ? "learned" : "rotary";
}

std::string_view ToString(RowLayout rows) {
  switch (rows) {
    case RowLayout::kLlama:
      return "llama";
    case RowLayout::kGpt2:
      return "gpt2";
    case RowLayout::kBert:
      return "bert";
  }
  return "llama";
}

bool TransformerSpec::IsMoeLayer(uint32_t layer) const {
  if (!moe || layer < moe->first_dense_layers || moe->layer_frequency == 0) return false;
  if (layer % moe->layer_frequency != 0) return false;
  const auto& dense = moe->dense_layers;
  return std::find(dense.begin(), dense.end(), layer) == dense.end();
}

namespace {

// "got X; accepted: MIN to MAX" when X is outside.
std::optional<SpecProblem> Range(const char* field, uint64_t value, uint64_t min, uint64_t max) {
  if (value >= min && value <= max) return std::nullopt;
  return SpecProblem{field, fmt::format("got {}; accepted: {} to {}", value, min, max)};
}

std::optional<SpecProblem> CheckMoe(const TransformerSpec& spec) {
  const MoeSpec& moe = *spec.moe;
  using L = TransformerLimits;
  if (auto p = Range("moe.experts", moe.experts, 1, L::kMaxExperts)) return p;
  if (auto p = Range("moe.top_k", moe.top_k, 1, moe.experts)) return p;
  if (auto p = Range("moe.expert_ffn", moe.expert_ffn, 1, L::kMaxFfn)) return p;
  if (auto p = Range("moe.shared_experts", moe.shared_experts, 0, L::kMaxSharedExperts)) return p;
  if (moe.shared_experts > 0) {
    if (auto p = Range("moe.shared_expert_ffn", moe.shared_expert_ffn, 1, L::kMaxFfn)) return p;
  }
  if (auto p = Range("moe.first_dense_layers", moe.first_dense_layers, 0, spec.layers - 1)) {
    p->message += " (at least one layer must have experts)";
    return p;
  }
  if (auto p = Range("moe.layer_frequency", moe.layer_frequency, 1, spec.layers)) return p;
  for (uint32_t layer : moe.dense_layers) {
    if (layer >= spec.layers) {
      return SpecProblem{
          "moe.dense_layers",
          fmt::format("lists layer {}; accepted: layer indices 0 to {}", layer, spec.layers - 1)};
    }
  }
  bool any_moe = false, any_dense = false;
  for (uint32_t layer = 0; layer < spec.layers; ++layer) {
    (spec.IsMoeLayer(layer) ? any_moe : any_dense) = true;
  }
  if (!any_moe) {
    return SpecProblem{"moe",
                       "leaves no layer with experts (first_dense_layers, "
                       "layer_frequency and dense_layers exclude them all)"};
  }
  if (any_dense && spec.ffn == 0) {
    return SpecProblem{"ffn",
                       "missing: some layers have a dense MLP (moe.first_dense_layers, "
                       "layer_frequency or dense_layers), which needs its width"};
  }
  return std::nullopt;
}

std::optional<SpecProblem> CheckMla(const TransformerSpec& spec) {
  const MlaSpec& m = *spec.mla;
  using L = TransformerLimits;
  if (spec.head_dim != 0) {
    return SpecProblem{"head_dim",
                       "does not apply with mla (its qk_nope_head_dim, "
                       "qk_rope_head_dim and v_head_dim give the heads' widths)"};
  }
  if (spec.kv_heads != 0 && spec.kv_heads != spec.heads) {
    return SpecProblem{"kv_heads", fmt::format("got {}; latent attention expands keys and values "
                                               "for every head: accepted: {} (heads) or none",
                                               spec.kv_heads, spec.heads)};
  }
  if (spec.qkv_bias || spec.output_bias || spec.qk_norm) {
    return SpecProblem{spec.qk_norm    ? "qk_norm"
                       : spec.qkv_bias ? "qkv_bias"
                                       : "output_bias",
                       "is not modelled with mla (no released latent-attention model has it)"};
  }
  if (auto p = Range("mla.q_lora_rank", m.q_lora_rank, 0, L::kMaxHidden)) return p;
  if (auto p = Range("mla.kv_lora_rank", m.kv_lora_rank, 1, L::kMaxHidden)) return p;
  if (auto p = Range("mla.qk_nope_head_dim", m.qk_nope_head_dim, 0, L::kMaxHeadDim)) return p;
  if (auto p = Range("mla.qk_rope_head_dim", m.qk_rope_head_dim, 1, L::kMaxHeadDim)) return p;
  if (auto p = Range("mla.v_head_dim", m.v_head_dim, 1, L::kMaxHeadDim)) return p;
  return std::nullopt;
}

}  // namespace

std::optional<SpecProblem> CheckTransformerSpec(const TransformerSpec& spec) {
  using L = TransformerLimits;
  if (spec.name.empty()) return SpecProblem{"name", "is empty; accepted: any non-empty string"};
  if (auto p = Range("layers", spec.layers, 1, L::kMaxLayers)) return p;
  if (auto p = Range("hidden", spec.hidden, 1, L::kMaxHidden)) return p;
  if (auto p = Range("heads", spec.heads, 1, L::kMaxHeads)) return p;
  if (auto p = Range("vocab", spec.vocab, 1, L::kMaxVocab)) return p;
  if (auto p = Range("ffn", spec.ffn, spec.moe ? 0 : 1, L::kMaxFfn)) return p;
  if (auto p = Range("kv_heads", spec.kv_heads, 0, spec.heads)) return p;
  if (spec.KvHeads() != 0 && spec.heads % spec.KvHeads() != 0) {
    return SpecProblem{"kv_heads", fmt::format("got {}, which does not divide the {} attention "
                                               "heads; accepted: a divisor of {}",
                                               spec.kv_heads, spec.heads, spec.heads)};
  }
  if (auto p = Range("head_dim", spec.head_dim, 0, L::kMaxHeadDim)) return p;
  if (!spec.mla && spec.head_dim == 0 && spec.hidden % spec.heads != 0) {
    return SpecProblem{"head_dim", fmt::format("missing, and the hidden size {} is not a multiple "
                                               "of the {} heads; accepted: each head's width",
                                               spec.hidden, spec.heads)};
  }
  if (!spec.mla && spec.HeadDim() > L::kMaxHeadDim) {
    return SpecProblem{"head_dim", fmt::format("hidden / heads = {}; accepted: at most {}",
                                               spec.HeadDim(), L::kMaxHeadDim)};
  }
  if (spec.positions == PositionKind::kLearned) {
    if (auto p = Range("max_positions", spec.max_positions, 1, L::kMaxPositions)) {
      p->message += " (the rows of the learned position table)";
      return p;
    }
  } else if (spec.max_positions != 0) {
    return SpecProblem{"max_positions",
                       "applies to learned positions only (positions \"learned\"); rotary "
                       "positions have no table"};
  }
  if (auto p = Range("token_types", spec.token_types, 0, 1024)) return p;
  if (spec.rows == RowLayout::kGpt2 && !spec.tied_embeddings) {
    return SpecProblem{"tied_embeddings",
                       "rows \"gpt2\" books the LM head on ln_f, which holds "
                       "no head of its own: accepted: true (or rows \"llama\")"};
  }
  if (spec.mtp_layers > 0 && spec.rows != RowLayout::kLlama) {
    return SpecProblem{"mtp_layers",
                       "needs rows \"llama\" (multi-token prediction follows an "
                       "LM head of its own)"};
  }
  if (auto p = Range("mtp_layers", spec.mtp_layers, 0, L::kMaxMtpLayers)) return p;
  if (spec.moe) {
    if (auto p = CheckMoe(spec)) return p;
  }
  if (spec.mla) {
    if (auto p = CheckMla(spec)) return p;
  }
  // Every count below 2^64 whatever the sequence length (up to 2^20): a block's matrices hold at
  // most 2^40 weights per token, its heads at most 2^21 elements of queries/keys and values.
  const uint64_t qk_v =
      spec.mla ? spec.mla->qk_nope_head_dim + spec.mla->qk_rope_head_dim + spec.mla->v_head_dim
               : 2 * spec.HeadDim();
  if (spec.heads * qk_v > (uint64_t{1} << 21)) {
    return SpecProblem{"heads", fmt::format("{} heads of {} query/key and value elements make "
                                            "{} per token; accepted: at most 2^21",
                                            spec.heads, qk_v, spec.heads * qk_v)};
  }
  double total = static_cast<double>(spec.vocab) * static_cast<double>(spec.hidden) * 2.0;
  for (uint32_t layer = 0; layer < spec.layers; ++layer) {
    if (TransformerBlockMatrixMacs(spec, layer) > (uint64_t{1} << 40)) {
      return SpecProblem{"hidden", fmt::format("layer {}'s matrices hold {} weights (routed "
                                               "experts aside); accepted: at most 2^40",
                                               layer, TransformerBlockMatrixMacs(spec, layer))};
    }
    total += static_cast<double>(TransformerBlockParams(spec, layer));
  }
  total += spec.mtp_layers * static_cast<double>(TransformerBlockParams(spec, spec.layers - 1));
  if (total > static_cast<double>(L::kMaxParams)) {
    return SpecProblem{"layers", fmt::format("the model would hold {:.4g} parameters; "
                                             "accepted: at most 2^50",
                                             total)};
  }
  return std::nullopt;
}

std::optional<std::string> CheckSequenceLength(const TransformerSpec& spec, uint64_t tokens) {
  if (tokens < 1 || tokens > TransformerLimits::kMaxSequence) {
    return fmt::format("got {} tokens; accepted: 1 to {}", tokens, TransformerLimits::kMaxSequence);
  }
  if (spec.sliding_window > 0 && tokens > spec.sliding_window) {
    return fmt::format(
        "{} tokens is more than model \"{}\"'s sliding window of {}: windowed "
        "attention is not modelled (it would change the attention's FLOPs); "
        "accepted: at most {} tokens",
        tokens, spec.name, spec.sliding_window, spec.sliding_window);
  }
  return std::nullopt;
}

}  // namespace hfsim
