// Memory-bound work (models/compute/elementwise.h): the time rule and a transformer block's
// passes, worked out by hand for Llama 3 70B at TP 8 (h 8192, F 28672 gated, 8 KV heads of
// 128 = kv width 1024, RoPE, no dropout) with 16-bit activations (a = 2 B).
#include <gtest/gtest.h>

#include <string_view>

#include "models/compute/device.h"
#include "models/compute/elementwise.h"

namespace hfsim {
namespace {

BlockDims Llama70B() {
  BlockDims d;
  d.hidden = 8192;
  d.ffn = 28672;
  d.gated = true;
  d.kv_dim = 1024;
  d.rope = true;
  d.hidden_dropout = false;
  return d;
}

double Find(const ElementwiseBreakdown& b, std::string_view name) {
  for (size_t i = 0; i < b.count; ++i) {
    if (b.passes[i].name == name) return b.passes[i].bytes_per_token;
  }
  return -1.0;
}

TEST(Elementwise, TimeIsBytesOverAchievableBandwidth) {
  const DeviceSpec& h100 = *FindDevice("H100-SXM");
  EXPECT_NEAR(ElementwiseTimeNs(h100, 1e9), 1e9 / (3350 * 0.9), 1e-6);  // 331.7 us per GB
}

TEST(Elementwise, LlamaBlockForwardBf16WithSequenceParallelism) {
  // Token-wise passes split over 8 (SP); head/FFN-wise over 8 (TP):
  //   input norm  (2 + 2) x 8192 / 8       =  4,096
  //   RoPE        2 x 2 x (8192 + 1024) / 8 =  4,608
  //   bda attn    3 x 2 x 8192 / 8          =  6,144
  //   pre-MLP     (2 + 2) x 8192 / 8        =  4,096
  //   SwiGLU      2 x (57344 + 28672) / 8   = 21,504
  //   bda MLP     6,144                     -> 46,592 B/token
  const ElementwiseBreakdown b =
      BlockElementwiseBytes(Llama70B(), BlockParallel{8, true}, Precision::kBf16, Pass::kForward);
  EXPECT_DOUBLE_EQ(b.bytes_per_token, 46592);
  EXPECT_EQ(b.count, 6u);
  EXPECT_DOUBLE_EQ(Find(b, "bias-SwiGLU"), 21504);
  EXPECT_DOUBLE_EQ(Find(b, "RoPE"), 4608);
}

TEST(Elementwise, LlamaBlockBackwardBf16) {
  //   SwiGLU bwd  2 x 5 x 28672 / 8 = 35,840; two norm backwards and two residual-gradient
  //   adds 4 x 6 x 8192 / 8 = 24,576; RoPE bwd 4,608 -> 65,024 B/token
  const ElementwiseBreakdown b =
      BlockElementwiseBytes(Llama70B(), BlockParallel{8, true}, Precision::kBf16, Pass::kBackward);
  EXPECT_DOUBLE_EQ(b.bytes_per_token, 65024);
  EXPECT_DOUBLE_EQ(Find(b, "SwiGLU backward"), 35840);
}

TEST(Elementwise, WithoutSequenceParallelismTokenWiseWorkIsReplicated) {
  // Without SP every rank runs the norms and residual adds on all tokens: the 4 + 4 + 6 + 6 =
  // 20 x 8192 token-wise bytes are no longer divided by 8.
  const double sp =
      BlockElementwiseBytes(Llama70B(), BlockParallel{8, true}, Precision::kBf16, Pass::kForward)
          .bytes_per_token;
  const double no_sp =
      BlockElementwiseBytes(Llama70B(), BlockParallel{8, false}, Precision::kBf16, Pass::kForward)
          .bytes_per_token;
  EXPECT_DOUBLE_EQ(no_sp - sp, 20.0 * 8192 * (1 - 1.0 / 8));
}

TEST(Elementwise, Fp8AddsTheCastsOfTheGemmOperands) {
  // Forward: proj input (2 + 2) x 8192 / 8 = 4,096 and fc2 input 4 x 28672 / 8 = 14,336 (the
  // norms already write FP8 row + column = 2 B, as much as BF16): 46,592 + 18,432.
  const ElementwiseBreakdown f =
      BlockElementwiseBytes(Llama70B(), BlockParallel{8, true}, Precision::kFp8, Pass::kForward);
  EXPECT_DOUBLE_EQ(f.bytes_per_token, 46592 + 18432);
  // Backward: output-gradient casts of fc2 (4 x 8192 / 8), fc1 (4 x 57344 / 8), proj
  // (4 x 8192 / 8), QKV (4 x (8192 + 2048) / 8) = 4,096 + 28,672 + 4,096 + 5,120.
  const ElementwiseBreakdown b =
      BlockElementwiseBytes(Llama70B(), BlockParallel{8, true}, Precision::kFp8, Pass::kBackward);
  EXPECT_DOUBLE_EQ(b.bytes_per_token, 65024 + 41984);
  EXPECT_DOUBLE_EQ(Find(b, "fc1 output-gradient cast"), 28672);
}

TEST(Elementwise, GeluAndDropoutBlocks) {
  // GPT-3-like: GeLU MLP F = 4h, hidden dropout, no RoPE, h = 1024, no tensor parallelism.
  BlockDims gpt;
  gpt.hidden = 1024;
  gpt.ffn = 4096;
  gpt.gated = false;
  gpt.rope = false;
  gpt.hidden_dropout = true;
  const ElementwiseBreakdown f =
      BlockElementwiseBytes(gpt, BlockParallel{}, Precision::kBf16, Pass::kForward);
  // norms 2 x 4 x 1024, bias-dropout-adds 2 x 7 x 1024 (mask 1 B), GeLU 2 x 2 x 4096.
  EXPECT_DOUBLE_EQ(f.bytes_per_token, 8192 + 14336 + 16384);
  const ElementwiseBreakdown b =
      BlockElementwiseBytes(gpt, BlockParallel{}, Precision::kBf16, Pass::kBackward);
  // dropout backwards 2 x 5 x 1024, GeLU backward 6 x 4096, norms + adds 4 x 6 x 1024.
  EXPECT_DOUBLE_EQ(b.bytes_per_token, 10240 + 24576 + 24576);
}

TEST(Elementwise, LossAndOptimizer) {
  // Megatron's native vocab-parallel cross entropy over V / t = 128256 / 8 logits per token.
  const double v = 128256.0 / 8;
  EXPECT_DOUBLE_EQ(LossElementwiseBytes(128256, 8, false, Pass::kForward).bytes_per_token,
                   (6 + 4 + 8 + 8 + 4 + 8) * v);
  EXPECT_DOUBLE_EQ(LossElementwiseBytes(128256, 8, false, Pass::kBackward).bytes_per_token, 14 * v);
  EXPECT_DOUBLE_EQ(LossElementwiseBytes(128256, 8, true, Pass::kForward).bytes_per_token, 22 * v);
  EXPECT_DOUBLE_EQ(AdamStepBytesPerParameter(), 30);
  EXPECT_DOUBLE_EQ(Fp8WeightCastBytesPerParameter(), 4);
}

}  // namespace
}  // namespace hfsim
