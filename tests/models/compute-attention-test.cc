// Attention core time (models/compute/attention-time.h, attention-table.h): the FLOP count and
// its causal masks, the published rates read back, interpolation and clamping, the derived
// backward rates, and the unfused path as its GEMMs and softmax passes.
#include <gtest/gtest.h>

#include <cmath>

#include "models/compute/attention-table.h"
#include "models/compute/attention-time.h"
#include "models/compute/device.h"
#include "models/compute/elementwise.h"
#include "models/compute/gemm-time.h"

namespace hfsim {
namespace {

AttentionShape Square(uint64_t batch, uint32_t heads, uint64_t seq, uint32_t d, bool causal) {
  AttentionShape s;
  s.batch = batch;
  s.heads = heads;
  s.kv_heads = heads;
  s.q_len = s.kv_len = seq;
  s.head_dim = d;
  s.causal = causal;
  return s;
}

TEST(AttentionFlops, CausalIsHalfAndBackwardTwoAndAHalfTimesForward) {
  const AttentionShape full = Square(2, 16, 4096, 128, false);
  AttentionShape causal = full;
  causal.causal = true;
  // FlashAttention's count: 4 b s^2 h d forward.
  EXPECT_DOUBLE_EQ(AttentionFlops(full, Pass::kForward), 4.0 * 2 * 4096.0 * 4096 * 16 * 128);
  EXPECT_DOUBLE_EQ(AttentionFlops(causal, Pass::kForward),
                   0.5 * AttentionFlops(full, Pass::kForward));
  EXPECT_DOUBLE_EQ(AttentionFlops(full, Pass::kBackward),
                   2.5 * AttentionFlops(full, Pass::kForward));
  // MLA-like q/k 192, v 128: 2 b h s^2 (192 + 128).
  AttentionShape mla = full;
  mla.head_dim = 192;
  mla.v_head_dim = 128;
  EXPECT_DOUBLE_EQ(AttentionFlops(mla, Pass::kForward), 2.0 * 2 * 16 * 4096.0 * 4096 * 320);
}

TEST(AttentionFlops, ContextParallelBlocksAreFullHalfOrNothing) {
  // A rank's q block of L = 1024 against kv blocks before, at and after it.
  AttentionShape block = Square(1, 8, 1024, 128, true);
  block.q_offset = 1024;  // kv block wholly before the queries
  EXPECT_DOUBLE_EQ(AttendedPairs(block), 1024.0 * 1024);
  block.q_offset = 3 * 1024;
  EXPECT_DOUBLE_EQ(AttendedPairs(block), 1024.0 * 1024);
  block.q_offset = 0;  // the diagonal block
  EXPECT_DOUBLE_EQ(AttendedPairs(block), 0.5 * 1024 * 1024);
  block.q_offset = -1024;  // kv block wholly after
  EXPECT_DOUBLE_EQ(AttendedPairs(block), 0.0);
  // Half a block in: queries at 512..1535 against keys 0..1023. The first 512 queries see
  // 512 + t keys (t in [0, 512)), the other 512 all 1024: 512^2 + 512^2 / 2 + 512 x 1024 =
  // 917,504.
  block.q_offset = 512;
  EXPECT_DOUBLE_EQ(AttendedPairs(block), 917504.0);
  // Bottom-right alignment (FlashAttention 2.1+ / 3, s_k > s_q) matches FA3's benchmark count
  // avg_seqlen = (max(0, s_k - s_q) + s_k) / 2 per query.
  AttentionShape decode = Square(1, 8, 1024, 128, true);
  decode.kv_len = 4096;
  decode.q_offset = 4096 - 1024;
  EXPECT_DOUBLE_EQ(AttendedPairs(decode), 1024.0 * ((4096 - 1024) + 4096) / 2.0);
  // Without a mask the offset does not matter.
  block.causal = false;
  EXPECT_DOUBLE_EQ(AttendedPairs(block), 1024.0 * 1024);
}

TEST(AttentionTables, PublishedPointsReadBackExactly) {
  const AttentionKernel cudnn{&kCudnnH100, 1.0};
  EXPECT_DOUBLE_EQ(AttentionRateTflops(cudnn, 128, false, Pass::kForward, 2048), 617);
  EXPECT_DOUBLE_EQ(AttentionRateTflops(cudnn, 128, true, Pass::kForward, 8192), 529);
  EXPECT_DOUBLE_EQ(AttentionRateTflops(cudnn, 64, false, Pass::kBackward, 4096), 417);
  EXPECT_DOUBLE_EQ(AttentionRateTflops(cudnn, 256, true, Pass::kForward, 16384), 509);
  const AttentionKernel fa2{&kFlashAttention2A100, 1.0};
  // FA2 publishes fwd+bwd only: both passes get the fwd+bwd rate.
  EXPECT_DOUBLE_EQ(AttentionRateTflops(fa2, 128, true, Pass::kForward, 4096), 173);
  EXPECT_DOUBLE_EQ(AttentionRateTflops(fa2, 128, true, Pass::kBackward, 4096), 173);
  const AttentionKernel fa3{&kFlashAttention3H100, 1.0};
  EXPECT_DOUBLE_EQ(AttentionRateTflops(fa3, 128, false, Pass::kBackward, 16384), 561);
}

TEST(AttentionTables, LogLinearInSequenceLengthAndClampedAtTheEnds) {
  const AttentionKernel cudnn{&kCudnnH100, 1.0};
  // sqrt(2048 x 4096) is halfway between 2k and 4k in log2: the mean of 617 and 609.
  EXPECT_NEAR(AttentionRateTflops(cudnn, 128, false, Pass::kForward, std::sqrt(2048.0 * 4096)),
              613.0, 1e-9);
  EXPECT_DOUBLE_EQ(AttentionRateTflops(cudnn, 128, false, Pass::kForward, 65536), 595);  // 16k's
  EXPECT_DOUBLE_EQ(AttentionRateTflops(cudnn, 128, false, Pass::kForward, 128), 497);    // 512's
}

TEST(AttentionTables, HeadDimensionLinearBetweenPublishedOnesNearestOutside) {
  const AttentionKernel cudnn{&kCudnnH100, 1.0};
  // d = 96: halfway between 64 (395) and 128 (617) at 2k.
  EXPECT_DOUBLE_EQ(AttentionRateTflops(cudnn, 96, false, Pass::kForward, 2048), 506);
  EXPECT_DOUBLE_EQ(AttentionRateTflops(cudnn, 32, false, Pass::kForward, 2048), 395);
  EXPECT_DOUBLE_EQ(AttentionRateTflops(cudnn, 512, false, Pass::kForward, 2048), 580);
  // FA2 publishes 64 and 128 only: 256 takes 128's.
  const AttentionKernel fa2{&kFlashAttention2A100, 1.0};
  EXPECT_DOUBLE_EQ(AttentionRateTflops(fa2, 256, false, Pass::kForward, 2048), 187);
}

TEST(AttentionTables, UnpublishedBackwardCarriesTheForwardPenaltyOver) {
  const AttentionKernel cudnn{&kCudnnH100, 1.0};
  // Causal backward at d = 128, 2k: non-causal backward 465 x causal/non-causal forward
  // 484 / 617.
  EXPECT_NEAR(AttentionRateTflops(cudnn, 128, true, Pass::kBackward, 2048), 465.0 * 484 / 617,
              1e-9);
  // d = 256 backward (non-causal): from d = 128's backward, 465 x 580 / 617.
  EXPECT_NEAR(AttentionRateTflops(cudnn, 256, false, Pass::kBackward, 2048), 465.0 * 580 / 617,
              1e-9);
  // A scaled kernel scales every rate.
  const AttentionKernel scaled{&kCudnnH100, 2.0};
  EXPECT_DOUBLE_EQ(AttentionRateTflops(scaled, 128, false, Pass::kForward, 2048), 1234);
  EXPECT_EQ(AttentionRateTflops(AttentionKernel{}, 128, false, Pass::kForward, 2048), 0.0);
}

TEST(AttentionTime, TheBenchmarkShapeTakesThePublishedRate) {
  const DeviceSpec& h100 = *FindDevice("H100-SXM");
  // The FA3 paper's sizing: batch x seq = 16k, heads x d = 2048.
  const AttentionShape s = Square(8, 16, 2048, 128, false);
  const AttentionEstimate e = EstimateAttention(h100, Precision::kBf16, s, Pass::kForward);
  EXPECT_EQ(e.impl, AttentionImpl::kFused);
  EXPECT_DOUBLE_EQ(e.rate_TFLOPS, 617);
  EXPECT_NEAR(e.time_ns, 4.0 * 8 * 2048.0 * 2048 * 16 * 128 / 617e3, 1e-6);
  // FA2 on an A100, causal d = 128 at 4k: forward + backward = 3.5 x forward FLOPs at 173.
  const DeviceSpec& a100 = *FindDevice("A100-SXM-80GB");
  const AttentionShape c = Square(4, 16, 4096, 128, true);
  const double both = AttentionTimeNs(a100, Precision::kBf16, c, Pass::kForward) +
                      AttentionTimeNs(a100, Precision::kBf16, c, Pass::kBackward);
  EXPECT_NEAR(both, 3.5 * 0.5 * 4.0 * 4 * 4096.0 * 4096 * 16 * 128 / 173e3, 1e-6);
}

TEST(AttentionTime, MonotoneInSequenceLengthOnEveryDevice) {
  for (const DeviceSpec& d : AllDevices()) {
    const Precision p = d.Supports(Precision::kBf16) ? Precision::kBf16 : Precision::kFp16;
    for (bool causal : {false, true}) {
      for (Pass pass : {Pass::kForward, Pass::kBackward}) {
        double last = 0.0;
        for (uint64_t seq = 256; seq <= 65536; seq *= 2) {
          const double t = AttentionTimeNs(d, p, Square(1, 8, seq, 128, causal), pass);
          EXPECT_GT(t, last) << d.name << " seq " << seq;
          last = t;
        }
      }
    }
  }
}

TEST(AttentionTime, CausalHalvesTheFusedWorkNotTheRate) {
  const DeviceSpec& h100 = *FindDevice("H100-SXM");
  const AttentionEstimate full =
      EstimateAttention(h100, Precision::kBf16, Square(1, 8, 8192, 128, false), Pass::kForward);
  const AttentionEstimate causal =
      EstimateAttention(h100, Precision::kBf16, Square(1, 8, 8192, 128, true), Pass::kForward);
  EXPECT_DOUBLE_EQ(causal.flops, 0.5 * full.flops);
  EXPECT_DOUBLE_EQ(full.rate_TFLOPS, 600);
  EXPECT_DOUBLE_EQ(causal.rate_TFLOPS, 529);  // the causal kernel is slower per FLOP
  // A fully visible context-parallel block uses the non-causal curve; a masked-out one is free.
  AttentionShape before = Square(1, 8, 8192, 128, true);
  before.q_offset = 8192;
  EXPECT_DOUBLE_EQ(EstimateAttention(h100, Precision::kBf16, before, Pass::kForward).time_ns,
                   full.time_ns);
  before.q_offset = -8192;
  EXPECT_EQ(AttentionTimeNs(h100, Precision::kBf16, before, Pass::kForward), 0.0);
}

TEST(AttentionTime, Fp8AttentionIsPricedAsBf16) {
  const DeviceSpec& h100 = *FindDevice("H100-SXM");
  const AttentionShape s = Square(1, 8, 8192, 128, true);
  EXPECT_DOUBLE_EQ(AttentionTimeNs(h100, Precision::kFp8, s, Pass::kBackward),
                   AttentionTimeNs(h100, Precision::kBf16, s, Pass::kBackward));
}

TEST(AttentionTime, UnfusedIsTwoBatchedGemmsPlusSoftmaxOverTheWholeSquare) {
  const DeviceSpec& h100 = *FindDevice("H100-SXM");
  AttentionShape s = Square(2, 4, 1024, 128, false);
  const AttentionEstimate e =
      EstimateAttention(h100, Precision::kBf16, s, Pass::kForward, AttentionImpl::kUnfused);
  EXPECT_EQ(e.impl, AttentionImpl::kUnfused);
  const double gemms = GemmTimeNs(h100, Precision::kBf16, 1024, 1024, 128, 8) +  // Q K^T
                       GemmTimeNs(h100, Precision::kBf16, 1024, 128, 1024, 8);   // P V
  EXPECT_DOUBLE_EQ(e.gemm_ns, gemms);
  // Fused scale-mask-softmax: read and write 2 B per score, 8 x 1024^2 scores.
  EXPECT_NEAR(e.elementwise_ns, 8.0 * 1024 * 1024 * 4 / (3350 * 0.9), 1e-6);
  EXPECT_DOUBLE_EQ(e.time_ns, e.gemm_ns + e.elementwise_ns);
  // Backward: four GEMMs, softmax backward 6 B per score, and dropout 5 B per score each way.
  s.dropout = true;
  const AttentionEstimate b =
      EstimateAttention(h100, Precision::kBf16, s, Pass::kBackward, AttentionImpl::kUnfused);
  // dS K, dS^T Q and P^T dO are 1024 x 128 x 1024; dO V^T is 1024 x 1024 x 128.
  EXPECT_DOUBLE_EQ(b.gemm_ns, 3 * GemmTimeNs(h100, Precision::kBf16, 1024, 128, 1024, 8) +
                                  GemmTimeNs(h100, Precision::kBf16, 1024, 1024, 128, 8));
  EXPECT_NEAR(b.elementwise_ns, 8.0 * 1024 * 1024 * (6 + 5) / (3350 * 0.9), 1e-6);
  // The mask is applied in the softmax: causal saves nothing.
  AttentionShape causal = Square(2, 4, 1024, 128, true);
  EXPECT_DOUBLE_EQ(
      AttentionTimeNs(h100, Precision::kBf16, causal, Pass::kForward, AttentionImpl::kUnfused),
      e.time_ns);
}

TEST(AttentionTime, VoltaRunsUnfused) {
  const DeviceSpec& v100 = *FindDevice("V100-SXM2-32GB");
  const AttentionEstimate e =
      EstimateAttention(v100, Precision::kFp16, Square(1, 16, 2048, 64, true), Pass::kForward);
  EXPECT_EQ(e.impl, AttentionImpl::kUnfused);
  EXPECT_GT(e.gemm_ns, 0.0);
}

}  // namespace
}  // namespace hfsim
