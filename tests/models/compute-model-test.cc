// The compute model's entry point (models/compute/compute-model.h): which precision each GEMM
// runs in, devices that cannot train in a precision, the attention implementation actually
// used, and the per-class tally.
#include "models/compute/compute-model.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>

namespace hfsim {
namespace {

ComputeModel Make(const char* device, Precision precision,
                  AttentionImpl attention = AttentionImpl::kFused) {
  auto made = ComputeModel::Create(*FindDevice(device), precision, attention);
  EXPECT_TRUE(std::holds_alternative<ComputeModel>(made)) << device;
  return std::get<ComputeModel>(made);
}

TEST(ComputeModel, Fp8RunsTheLinearLayersOnlyInFp8) {
  const ComputeModel model = Make("H100-SXM", Precision::kFp8);
  EXPECT_EQ(model.PrecisionOf(GemmClass::kLinear), Precision::kFp8);
  EXPECT_EQ(model.PrecisionOf(GemmClass::kLmHead), Precision::kBf16);
  EXPECT_EQ(model.PrecisionOf(GemmClass::kHighPrecision), Precision::kBf16);
  const DeviceSpec& h100 = *FindDevice("H100-SXM");
  const GemmShape shape{8192, 8192, 8192};
  EXPECT_DOUBLE_EQ(model.Gemm(GemmClass::kLinear, shape).time_ns,
                   EstimateGemm(h100, Precision::kFp8, shape).time_ns);
  EXPECT_DOUBLE_EQ(model.Gemm(GemmClass::kLmHead, shape).time_ns,
                   EstimateGemm(h100, Precision::kBf16, shape).time_ns);
  EXPECT_DOUBLE_EQ(model.Linear(GemmClass::kLinear, 8192, 8192, 1280).TotalNs(),
                   EstimateLinearGemms(h100, Precision::kFp8, 8192, 8192, 1280).TotalNs());
  // The attention core stays BF16.
  AttentionShape a;
  a.heads = 8;
  a.kv_heads = 1;
  a.q_len = a.kv_len = 8192;
  a.causal = true;
  EXPECT_DOUBLE_EQ(model.Attention(a, Pass::kForward).time_ns,
                   AttentionTimeNs(h100, Precision::kBf16, a, Pass::kForward));
}

TEST(ComputeModel, UnderBf16EveryGemmIsBf16) {
  const ComputeModel model = Make("A100-SXM-80GB", Precision::kBf16);
  EXPECT_EQ(model.PrecisionOf(GemmClass::kLinear), Precision::kBf16);
  EXPECT_EQ(model.PrecisionOf(GemmClass::kLmHead), Precision::kBf16);
  EXPECT_EQ(model.attention_impl(), AttentionImpl::kFused);
}

TEST(ComputeModel, RefusesAPrecisionTheDeviceLacks) {
  const auto fp8 =
      ComputeModel::Create(*FindDevice("A100-SXM-80GB"), Precision::kFp8, AttentionImpl::kFused);
  ASSERT_TRUE(std::holds_alternative<std::string>(fp8));
  EXPECT_EQ(std::get<std::string>(fp8),
            "A100-SXM-80GB has no fp8 arithmetic; it runs: bf16, fp16, tf32, fp32");
  const auto bf16 =
      ComputeModel::Create(*FindDevice("V100-SXM2-32GB"), Precision::kBf16, AttentionImpl::kFused);
  ASSERT_TRUE(std::holds_alternative<std::string>(bf16));
}

TEST(ComputeModel, VoltaRunsAttentionUnfusedWhateverIsAsked) {
  const ComputeModel model = Make("V100-SXM2-32GB", Precision::kFp16, AttentionImpl::kFused);
  EXPECT_EQ(model.attention_impl(), AttentionImpl::kUnfused);
  EXPECT_EQ(Make("H100-SXM", Precision::kBf16, AttentionImpl::kUnfused).attention_impl(),
            AttentionImpl::kUnfused);
}

TEST(ComputeModel, BlockElementwiseIsBytesTimesTokensOverBandwidth) {
  const ComputeModel model = Make("H100-SXM", Precision::kBf16);
  BlockDims dims;
  dims.hidden = 8192;
  dims.ffn = 28672;
  dims.kv_dim = 1024;
  // 46,592 B/token (compute-elementwise-test) x 8192 tokens / 3015 B/ns.
  EXPECT_NEAR(model.BlockElementwiseNs(dims, BlockParallel{8, true}, 8192, Pass::kForward),
              46592.0 * 8192 / 3015.0, 1e-6);
}

// docs/compute-model.md §8: one Llama 3 70B block on an H100 at TP 8 with sequence
// parallelism, micro-batch 1, sequence 8192. The figures printed there, to 0.1 us.
TEST(ComputeModel, TheDocumentedLlama70BBlock) {
  const uint64_t tokens = 8192;
  struct Linear {
    uint64_t in, out;
  };
  const Linear linears[] = {{8192, 1280}, {1024, 8192}, {8192, 7168}, {3584, 8192}};
  BlockDims dims;
  dims.hidden = 8192;
  dims.ffn = 28672;
  dims.kv_dim = 1024;
  AttentionShape a;
  a.heads = 8;
  a.kv_heads = 1;
  a.q_len = a.kv_len = 8192;
  a.causal = true;
  struct Expected {
    Precision precision;
    double gemm_us, block_us;
  };
  for (const Expected& x :
       {Expected{Precision::kBf16, 6743.4, 8058.8}, Expected{Precision::kFp8, 3819.8, 5299.4}}) {
    const ComputeModel model = Make("H100-SXM", x.precision);
    ComputeTally tally;
    for (const Linear& l : linears) {
      tally.Add(OpClass::kGemm, model.Linear(GemmClass::kLinear, tokens, l.in, l.out).TotalNs());
    }
    for (Pass pass : {Pass::kForward, Pass::kBackward}) {
      tally.Add(OpClass::kAttention, model.Attention(a, pass).time_ns);
      tally.Add(OpClass::kElementwise,
                model.BlockElementwiseNs(dims, BlockParallel{8, true}, tokens, pass));
    }
    EXPECT_NEAR(tally[OpClass::kGemm] / 1e3, x.gemm_us, 0.05) << ToString(x.precision);
    EXPECT_NEAR(tally[OpClass::kAttention] / 1e3, 259.8 + 752.3, 0.1);
    EXPECT_NEAR(tally.TotalNs() / 1e3, x.block_us, 0.1) << ToString(x.precision);
  }
}

TEST(ComputeTally, SumsPerClass) {
  ComputeTally tally;
  tally.Add(OpClass::kGemm, 10);
  tally.Add(OpClass::kGemm, 5);
  tally.Add(OpClass::kAttention, 3);
  tally.Add(OpClass::kElementwise, 2);
  tally.Add(OpClass::kCommKernelOverhead, 1);
  EXPECT_EQ(tally[OpClass::kGemm], 15);
  EXPECT_EQ(tally.TotalNs(), 21);
  ComputeTally other;
  other.Add(OpClass::kAttention, 4);
  tally += other;
  EXPECT_EQ(tally[OpClass::kAttention], 7);
  EXPECT_EQ(ToString(OpClass::kCommKernelOverhead), "comm_kernel_overhead");
}

}  // namespace
}  // namespace hfsim
