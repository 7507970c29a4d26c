// Mixture-of-experts models of the zoo, built from their published hyper-parameters: Mixtral
// 8x7B (Llama-style attention, 8 SwiGLU experts, top-2) and DeepSeek-V3 (multi-head latent
// attention, 3 dense layers, then 1 shared and 256 routed experts, top-8).
#pragma once

#include <cstdint>

#include "workloads/layer.h"

namespace hfsim {

/// Mixtral 8x7B (Jiang et al. 2024, "Mixtral of Experts", Table 1; the released config):
/// d 4,096, 32 layers, 32 query and 8 key/value heads of 128, experts of ffn 14,336, vocab
/// 32,000, untied LM head. Rows "tok_embeddings", "layers.<i>" (attention, router and routed
/// experts), "norm", "output". 46,702,792,704 parameters.
Model BuildMixtral8x7B(uint32_t sequence_length);

/// DeepSeek-V3 (DeepSeek-AI 2024, "DeepSeek-V3 Technical Report", §4.2 and the released
/// config), without the multi-token-prediction module: d 7,168, 61 layers (the first 3 dense,
/// ffn 18,432), multi-head latent attention (128 heads; query rank 1,536, key/value rank 512,
/// head dims 128 + 64 rotary for queries and keys, 128 for values), then per MoE layer one
/// shared and 256 routed experts of ffn 2,048, top-8, vocab 129,280, untied LM head.
/// 671,026,419,200 parameters (the report's 671B).
Model BuildDeepSeekV3(uint32_t sequence_length);

}  // namespace hfsim
