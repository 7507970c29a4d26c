// What a transformer block keeps for its backward pass (Layer::saved, docs/memory.md §2),
// against bytes worked out by hand from the block's shapes, per sample, whole (before any
// tensor split).
#include <gtest/gtest.h>

#include "workloads/model-zoo.h"
#include "workloads/transformer-block.h"
#include "workloads/transformer-model.h"
#include "workloads/zoo-transformers.h"

namespace hfsim {
namespace {

// A small GPT: h = 64, 4 heads, GELU MLP of 4h, LayerNorm, dropout; s = 128, so s h = 8,192.
// Korthikanti et al. 2022, §4.1: replicated 10 s h (two norm inputs 2 + 2, QKV and fc1 inputs
// 2 + 2, two 1-byte dropout masks) = 81,920; split 24 s h (Q, K, V 6, the attention output 2,
// GELU's input 8, fc2's input 8) = 196,608; the unfused core 5 a s^2 = 5 x 4 x 16,384 = 327,680;
// FlashAttention's log-sum-exp 4 bytes x a x s = 2,048. Together with the unfused core this is
// their eq. 1, s h (34 + 5 a s / h) = 278,528 + 327,680.
TEST(SavedActivations, SmallGptBlockIsKorthikantiEquationOne) {
  const TransformerSpec spec = GptSpec("gpt-small-test", 2, 64, 4, 128);
  const Layer block = BuildTransformerBlock(spec, 0, 128, "h.0");
  ASSERT_TRUE(block.saved);
  EXPECT_EQ(block.saved->replicated, 81'920.0);
  EXPECT_EQ(block.saved->split, 196'608.0);
  EXPECT_EQ(block.saved->routed, 0.0);
  EXPECT_EQ(block.saved->unfused_core, 327'680.0);
  EXPECT_EQ(block.saved->fused_core, 2'048.0);
  EXPECT_EQ(block.saved->replicated + block.saved->split + block.saved->unfused_core,
            block.activation_bytes_per_sample);
  // FP8: the QKV and fc1 inputs in 1 byte (replicated -2 s h = 65,536); the projection keeps an
  // FP8 copy of the attention output (+s h) and fc2 its input in FP8 (-4 s h): split 196,608 -
  // 3 x 8,192 = 172,032. The attention core is BF16: unchanged.
  ASSERT_TRUE(block.saved_fp8);
  EXPECT_EQ(block.saved_fp8->replicated, 65'536.0);
  EXPECT_EQ(block.saved_fp8->split, 172'032.0);
  EXPECT_EQ(block.saved_fp8->unfused_core, 327'680.0);
  EXPECT_EQ(block.saved_fp8->fused_core, 2'048.0);
}

// A small Llama-style block: h = 64, 8 heads of 8 over 2 key/value heads (K and V 16 wide),
// SwiGLU of f = 176, RMSNorm, no dropout; s = 128 (s h = 8,192).
//   replicated: norm inputs 2 + 2, QKV and fc1 inputs 2 + 2 = 8 s h = 65,536
//   split: Q 2 s 64 = 16,384, K and V 2 s 16 = 4,096 each, the output 2 s 64 = 16,384, SwiGLU's
//          gate and up 2 x 2 s 176 = 90,112, fc2's input 2 s 176 = 45,056: 176,128
//   core: 4 x 8 x 128 = 4,096 (fused), 5 x 8 x 128^2 = 655,360 (unfused)
// FP8: replicated 65,536 - 2 x 8,192 = 49,152; split 176,128 + 8,192 (the projection's FP8
// copy of the 64-wide output) - 22,528 (fc2's input, 1 byte) = 161,792.
TEST(SavedActivations, SmallLlamaBlockWithSwigluAndGqa) {
  TransformerSpec spec;
  spec.name = "llama-small-test";
  spec.layers = 2;
  spec.hidden = 64;
  spec.ffn = 176;
  spec.heads = 8;
  spec.kv_heads = 2;
  spec.vocab = 1000;
  const Layer block = BuildTransformerBlock(spec, 0, 128, "layers.0");
  ASSERT_TRUE(block.saved && block.saved_fp8);
  EXPECT_EQ(block.saved->replicated, 65'536.0);
  EXPECT_EQ(block.saved->split, 176'128.0);
  EXPECT_EQ(block.saved->fused_core, 4'096.0);
  EXPECT_EQ(block.saved->unfused_core, 655'360.0);
  EXPECT_EQ(block.saved_fp8->replicated, 49'152.0);
  EXPECT_EQ(block.saved_fp8->split, 161'792.0);
}

// A small mixture-of-experts block: h = 64, 4 heads (no GQA), 8 routed experts of 32 (SwiGLU),
// top-2, one shared expert of 32; s = 128.
//   replicated: norm inputs 2 + 2, QKV input 2, the router's input 2 (s h each), routing scores
//               in FP32 4 x 8 per token: 65,536 + 4,096 = 69,632
//   split: Q, K, V 6 s h = 49,152, the output 2 s h = 16,384, the shared expert's gate and up
//          2 x 2 s 32 = 16,384 and fc2 input 2 s 32 = 8,192: 90,112
//   routed, per token x top-2 = 256 rows: the permuted token 2 h = 128, gate and up 2 x 2 x 32 =
//          128, fc2's input 2 x 32 = 64, the expert's output 2 h = 128: 256 x 448 = 114,688
// FP8: replicated -s h (QKV input) +s h (the shared expert's FP8 copy of the norm output) =
// 69,632; split +s h (output copy) -s 32 (shared fc2 input) = 94,208; routed 256 x (64 + 128 +
// 32 + 128) = 90,112.
TEST(SavedActivations, SmallMoeBlockKeepsRoutingAndPermutedTokens) {
  TransformerSpec spec;
  spec.name = "moe-small-test";
  spec.layers = 2;
  spec.hidden = 64;
  spec.ffn = 128;
  spec.heads = 4;
  spec.vocab = 1000;
  MoeSpec& moe = spec.moe.emplace();
  moe.experts = 8;
  moe.top_k = 2;
  moe.expert_ffn = 32;
  moe.shared_experts = 1;
  moe.shared_expert_ffn = 32;
  const Layer block = BuildTransformerBlock(spec, 0, 128, "layers.0");
  ASSERT_TRUE(block.routed && block.saved && block.saved_fp8);
  EXPECT_EQ(block.saved->replicated, 69'632.0);
  EXPECT_EQ(block.saved->split, 90'112.0);
  EXPECT_EQ(block.saved->routed, 114'688.0);
  EXPECT_EQ(block.saved_fp8->replicated, 69'632.0);
  EXPECT_EQ(block.saved_fp8->split, 94'208.0);
  EXPECT_EQ(block.saved_fp8->routed, 90'112.0);
}

// The LM head's row keeps its input, and the cross entropy's FP32 softmax over the vocabulary:
// GPT-2 small at s = 1,024 (ln_f holds the final norm and the tied head): 4 s h = 3,145,728
// replicated, 4 s V = 4 x 1,024 x 50,257 = 205,852,672 split; Llama 3 8B's "output" row (its norm
// is a row of its own) 2 s h = 2 x 8,192 x 4,096 = 67,108,864 and 4 x 8,192 x 128,256 =
// 4,202,692,608.
TEST(SavedActivations, LmHeadKeepsItsInputAndTheLossSoftmax) {
  const Model gpt = *BuildZooModel("gpt2_small");
  const Layer& ln_f = gpt.layers.back();
  ASSERT_EQ(ln_f.name, "ln_f");
  ASSERT_TRUE(ln_f.saved);
  EXPECT_EQ(ln_f.saved->replicated, 3'145'728.0);
  EXPECT_EQ(ln_f.saved->split, 205'852'672.0);
  const Model llama = *BuildZooModel("llama3_8b");
  const Layer& output = llama.layers.back();
  ASSERT_EQ(output.name, "output");
  ASSERT_TRUE(output.saved);
  EXPECT_EQ(output.saved->replicated, 67'108'864.0);
  EXPECT_EQ(output.saved->split, 4'202'692'608.0);
  EXPECT_EQ(*output.saved_fp8, *output.saved);  // the head runs in BF16 under FP8
}

}  // namespace
}  // namespace hfsim
