#include "workloads/zoo-moe.h"

namespace hfsim {

TransformerSpec Mixtral8x7BSpec() {
  TransformerSpec spec;
  spec.name = "mixtral_8x7b";
  spec.layers = 32;
  spec.hidden = 4096;
  spec.heads = 32;
  spec.kv_heads = 8;
  spec.vocab = 32000;
  spec.moe = MoeSpec{.experts = 8, .top_k = 2, .expert_ffn = 14336};
  return spec;
}

TransformerSpec DeepSeekV3Spec() {
  TransformerSpec spec;
  spec.name = "deepseek_v3";
  spec.layers = 61;
  spec.hidden = 7168;
  spec.ffn = 18432;
  spec.heads = 128;
  spec.vocab = 129280;
  spec.moe = MoeSpec{.experts = 256,
                     .top_k = 8,
                     .expert_ffn = 2048,
                     .shared_experts = 1,
                     .shared_expert_ffn = 2048,
                     .first_dense_layers = 3,
                     .router_bias = true};
  spec.mla = MlaSpec{.q_lora_rank = 1536,
                     .kv_lora_rank = 512,
                     .qk_nope_head_dim = 128,
                     .qk_rope_head_dim = 64,
                     .v_head_dim = 128};
  return spec;
}

}  // namespace hfsim
