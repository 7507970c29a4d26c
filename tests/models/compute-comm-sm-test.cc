// SMs held by communication kernels and what that costs the compute beside them
// (models/compute/comm-sm.h, ComputeModel's overhead helpers), worked out by hand.
#include <gtest/gtest.h>

#include <variant>

#include "models/compute/comm-sm.h"
#include "models/compute/compute-model.h"
#include "models/compute/device.h"

namespace hfsim {
namespace {

TEST(CommSms, DefaultsOfTransformerEngineAndNccl) {
  const DeviceSpec& h100 = *FindDevice("H100-SXM");
  EXPECT_EQ(CommKernelSms(h100, CommKernel::kUserbuffersPipelineOrBulk), 16u);
  EXPECT_EQ(CommKernelSms(h100, CommKernel::kUserbuffersRingExchange), 1u);
  EXPECT_EQ(CommKernelSms(h100, CommKernel::kNcclNvls), 16u);
  EXPECT_EQ(CommKernelSms(h100, CommKernel::kNcclChannels, 24), 24u);
  EXPECT_EQ(CommKernelSms(h100, CommKernel::kCopyEngine), 0u);
  const DeviceSpec& b200 = *FindDevice("B200");
  EXPECT_EQ(CommKernelSms(b200, CommKernel::kNcclNvls), 24u);
  EXPECT_EQ(CommKernelSms(b200, CommKernel::kNcclNvls, 0, true), 32u);
  // No NVLink SHARP on an A100 or an MI300X.
  EXPECT_EQ(CommKernelSms(*FindDevice("A100-SXM-80GB"), CommKernel::kNcclNvls), 0u);
  EXPECT_EQ(CommKernelSms(*FindDevice("MI300X"), CommKernel::kNcclNvls), 0u);
  // Never all of them.
  EXPECT_EQ(CommKernelSms(h100, CommKernel::kNcclChannels, 500), 131u);
}

TEST(CommSms, SlowdownIsTheSmShare) {
  const DeviceSpec& h100 = *FindDevice("H100-SXM");
  EXPECT_DOUBLE_EQ(OverlappedComputeSlowdown(h100, 0), 1.0);
  EXPECT_DOUBLE_EQ(OverlappedComputeSlowdown(h100, 16), 132.0 / 116.0);
  EXPECT_DOUBLE_EQ(OverlappedComputeSlowdown(h100, 1), 132.0 / 131.0);
  EXPECT_DOUBLE_EQ(OverlappedComputeSlowdown(h100, CommKernel::kUserbuffersPipelineOrBulk),
                   132.0 / 116.0);
  EXPECT_DOUBLE_EQ(OverlappedComputeSlowdown(*FindDevice("B200"), CommKernel::kNcclNvls),
                   148.0 / 124.0);
  EXPECT_DOUBLE_EQ(OverlappedComputeSlowdown(h100, CommKernel::kCopyEngine), 1.0);
}

TEST(CommSms, AGemmBesideUserbuffersIsRequantizedOnTheRemainingSms) {
  const auto made =
      ComputeModel::Create(*FindDevice("H100-SXM"), Precision::kBf16, AttentionImpl::kFused);
  const ComputeModel& model = std::get<ComputeModel>(made);
  // 16896 x 2048: 1056 tiles of 128 x 256, 8 full waves of 132. On 116 SMs the best tile is
  // 128 x 160: 132 x 13 = 1716 tiles in ceil(1716 / 116) = 15 waves, at 2048 / 2080 x 1716 /
  // (15 x 132) = 64/75 of the device's rate: the GEMM takes 75/64 as long, 11/64 more (the
  // 128 x 256 tiles alone would need 10 waves: a quarter more).
  const GemmShape shape{16896, 2048, 8192};
  const double alone = model.Gemm(GemmClass::kLinear, shape).time_ns;
  EXPECT_NEAR(model.GemmCommOverheadNs(GemmClass::kLinear, shape, 16), alone * 11 / 64, 1e-6);
  EXPECT_EQ(model.GemmCommOverheadNs(GemmClass::kLinear, shape, 0), 0.0);
  // 1 SM (ring exchange): 160 x 128 tiles, 106 x 16 = 1696 in ceil(1696 / 131) = 13 waves, at
  // 16896 / 16960 x 1696 / (13 x 132) = 64/65: 1/64 more.
  EXPECT_NEAR(model.GemmCommOverheadNs(GemmClass::kLinear, shape, 1), alone / 64, 1e-6);
  // Other work: (132 / 116 - 1) of it.
  EXPECT_NEAR(model.CommOverheadNs(1000.0, 16), 1000.0 * 16 / 116, 1e-9);
}

}  // namespace
}  // namespace hfsim
