// Mixture-of-experts models of the zoo, as their published hyper-parameters: Mixtral 8x7B
// (Llama-style attention, 8 SwiGLU experts, top-2) and DeepSeek-V3 (multi-head latent attention,
// 3 dense layers, then 1 shared and 256 routed experts, top-8).
#pragma once

#include "workloads/transformer-spec.h"

namespace hfsim {

/// Mixtral 8x7B (Jiang et al. 2024, "Mixtral of Experts", Table 1; the released config):
/// d 4,096, 32 layers, 32 query and 8 key/value heads of 128, experts of ffn 14,336, vocab
/// 32,000, untied LM head. Per layer: Llama 3's attention (Q, O of d x d; K, V of d x 1,024), a
/// router of d x 8, two RMSNorm scales, 8 experts of 3 x 4,096 x 14,336 = 176,160,768:
/// 41,943,040 + 32,768 + 8,192 + 1,409,286,144 = 1,451,270,144. 46,702,792,704 parameters.
TransformerSpec Mixtral8x7BSpec();

/// DeepSeek-V3 (DeepSeek-AI 2024, "DeepSeek-V3 Technical Report", §4.2 and the released
/// config), without the multi-token-prediction module: d 7,168, 61 layers (the first 3 dense,
/// ffn 18,432), multi-head latent attention (128 heads; query rank 1,536, key/value rank 512,
/// head dims 128 + 64 rotary for queries and keys, 128 for values), then per MoE layer one
/// shared and 256 routed experts of ffn 2,048, top-8, vocab 129,280, untied LM head.
/// Latent attention per layer: query down (d x 1,536) and up (1,536 x 128 x 192) projections with
/// a norm of 1,536; key/value down projection with the shared rotary key (d x (512 + 64)) and a
/// norm of 512; key/value up projection (512 x 128 x (128 + 128)); output (128 x 128 x d):
/// 187,107,328. Two RMSNorm scales of d. MoE layers add a router of 256 x d and its 256 bias
/// terms. 671,026,419,200 parameters (the report's 671B).
TransformerSpec DeepSeekV3Spec();

}  // namespace hfsim
