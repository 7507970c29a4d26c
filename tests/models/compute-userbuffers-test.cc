// Transformer Engine's default userbuffers overlaps (models/compute/userbuffers.h) and what
// they add to the GEMMs beside them (ComputeModel::LinearCommOverheadNs), worked out by hand.
#include <gtest/gtest.h>

#include <variant>

#include "models/compute/compute-model.h"
#include "models/compute/device.h"
#include "models/compute/userbuffers.h"

namespace hfsim {
namespace {

// initialize_ub's `methods` table (transformer_engine/pytorch/module/base.py), GEMM by GEMM.
TEST(Userbuffers, DefaultMethodOfEachGemm) {
  using enum UbMethod;
  struct Row {
    UbLinear layer;
    UbMethod fprop, dgrad, wgrad;
  };
  const Row rows[] = {{UbLinear::kQkv, kRingExchange, kBulk, kBulk},
                      {UbLinear::kProj, kPipeline, kRingExchange, kNone},
                      {UbLinear::kFc1, kRingExchange, kBulk, kBulk},
                      {UbLinear::kFc2, kPipeline, kRingExchange, kNone}};
  for (const Row& row : rows) {
    SCOPED_TRACE(static_cast<int>(row.layer));
    EXPECT_EQ(DefaultUbMethod(row.layer, LinearPass::kFprop), row.fprop);
    EXPECT_EQ(DefaultUbMethod(row.layer, LinearPass::kDgrad), row.dgrad);
    EXPECT_EQ(DefaultUbMethod(row.layer, LinearPass::kWgrad), row.wgrad);
  }
  EXPECT_EQ(ToString(kRingExchange), "ring_exchange");
  EXPECT_EQ(ToString(kBulk), "bulk");
}

// get_default_config: num_sm 16 with set_sm_margin for pipeline and bulk, so the GEMM runs on
// SMs - 16; ring_exchange keeps every SM for the GEMM (set_sm_margin off, copy engine).
TEST(Userbuffers, SmsTakenFromEachGemm) {
  const DeviceSpec& h100 = *FindDevice("H100-SXM");
  EXPECT_EQ(UbGemmSmMargin(h100, UbMethod::kPipeline), 16u);
  EXPECT_EQ(UbGemmSmMargin(h100, UbMethod::kBulk), 16u);
  EXPECT_EQ(UbGemmSmMargin(h100, UbMethod::kRingExchange), 0u);
  EXPECT_EQ(UbGemmSmMargin(h100, UbMethod::kNone), 0u);
  const LinearSmsTaken qkv = DefaultUserbuffersSmsTaken(h100, UbLinear::kQkv, true, true);
  EXPECT_EQ(qkv.fprop, 0u);
  EXPECT_EQ(qkv.dgrad, 16u);
  EXPECT_EQ(qkv.wgrad, 16u);
  const LinearSmsTaken fc2 = DefaultUserbuffersSmsTaken(h100, UbLinear::kFc2, true, true);
  EXPECT_EQ(fc2.fprop, 16u);
  EXPECT_EQ(fc2.dgrad, 0u);
  EXPECT_EQ(fc2.wgrad, 0u);
  // A pass whose collective is not overlapped takes nothing.
  const LinearSmsTaken fc2_backward = DefaultUserbuffersSmsTaken(h100, UbLinear::kFc2, false, true);
  EXPECT_FALSE(fc2_backward.Any());
  const LinearSmsTaken fc1_forward = DefaultUserbuffersSmsTaken(h100, UbLinear::kFc1, true, false);
  EXPECT_FALSE(fc1_forward.Any());
}

// Llama 3 70B's fc1 at tensor 8 (docs/compute-model.md §8), 8192 tokens, BF16 on an H100: its
// wgrad (dW = dY^T X: m = out 7168, n = in 8192, k = 8192 tokens) runs beside the bulk
// reduce-scatter's 16 SMs.
//   Alone, 132 SMs: 160 x 128 tiles, ceil(7168 / 160) = 45 x 64 = 2880 tiles in
//     ceil(2880 / 132) = 22 waves: efficiency 7168/7200 x 2880/(22 x 132) = 0.98733.
//   Beside it, 116 SMs:
//     128 x 256 and 256 x 128   1792 tiles, ceil(1792 / 116) = 16 waves: 1792/2112 = 0.84848
//     128 x 192                 56 x 43 = 2408 tiles, 21 waves: 2408/2772 x 7168/7168 x
//                               8192/8256 = 0.86195 (192 x 128 the same, 0.86195)
//     160 x 128                 2880 tiles, ceil(2880 / 116) = 25 waves: 2880/3300 x 7168/7200
//                               = 0.86885
//     128 x 160                 56 x 52 = 2912 tiles, 26 waves: 2912/3432 x 8192/8320 = 0.83543
//     128 x 128                 56 x 64 = 3584 tiles, ceil(3584 / 116) = 31 waves: 3584/4092
//                               = 0.87586, the best.
//   Both compute-bound (memory: (7168 + 8192) x 8192 x 2 B + 7168 x 8192 x 8 B (fp32
//   accumulation) = 721 MB, 239 us against 1.2 ms), so the GEMM takes 0.98733 / 0.87586 =
//   (2 x 2880 x 4092) / (7200 x 2904) = 62/55 as long: 7/55 more. fprop and dgrad take nothing
//   here (ring exchange and not asked).
TEST(Userbuffers, BulkWgradRequantizedOn116Sms) {
  const auto made =
      ComputeModel::Create(*FindDevice("H100-SXM"), Precision::kBf16, AttentionImpl::kFused);
  const ComputeModel& model = std::get<ComputeModel>(made);
  const LinearGemms alone = model.Linear(GemmClass::kLinear, 8192, 8192, 7168);
  EXPECT_EQ(alone.wgrad.tiles, 2880u);
  EXPECT_EQ(alone.wgrad.waves, 22u);
  LinearOptions beside;
  beside.available_sms = 116;
  const LinearGemms slowed = model.Linear(GemmClass::kLinear, 8192, 8192, 7168, beside);
  EXPECT_EQ(slowed.wgrad.tile.m, 128u);
  EXPECT_EQ(slowed.wgrad.tile.n, 128u);
  EXPECT_EQ(slowed.wgrad.tiles, 3584u);
  EXPECT_EQ(slowed.wgrad.waves, 31u);
  const LinearSmsTaken taken = DefaultUserbuffersSmsTaken(*FindDevice("H100-SXM"), UbLinear::kFc1,
                                                          /*forward=*/false, /*backward=*/true);
  const LinearOverheadNs extra =
      model.LinearCommOverheadNs(GemmClass::kLinear, 8192, 8192, 7168, {}, taken);
  EXPECT_NEAR(extra.wgrad, alone.wgrad.time_ns * 7 / 55, 1e-6);
  EXPECT_GT(extra.dgrad, 0.0);  // bulk all-gather beside dgrad: 16 SMs too
  EXPECT_EQ(extra.fprop, 0.0);
  EXPECT_NEAR(extra.dgrad, slowed.dgrad.time_ns - alone.dgrad.time_ns, 1e-9);
  // Nothing taken, nothing added.
  const LinearOverheadNs none =
      model.LinearCommOverheadNs(GemmClass::kLinear, 8192, 8192, 7168, {}, LinearSmsTaken{});
  EXPECT_EQ(none.fprop + none.dgrad + none.wgrad, 0.0);
}

}  // namespace
}  // namespace hfsim
