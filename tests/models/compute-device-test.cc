// Device presets and precision names (models/compute/device.h, precision.h): lookup, names,
// and the data-sheet figures against independent arithmetic (clock x FMA/clock x 2 x cores).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "models/compute/device.h"
#include "models/compute/precision.h"

namespace hfsim {
namespace {

TEST(Precision, NamesRoundTripFromOneTable) {
  for (Precision p : kAllPrecisions) EXPECT_EQ(ParsePrecision(ToString(p)), p) << ToString(p);
  EXPECT_EQ(ToString(Precision::kBf16), "bf16");
  EXPECT_EQ(ToString(Precision::kFp8), "fp8");
  EXPECT_FALSE(ParsePrecision("BF16").has_value());
  EXPECT_FALSE(ParsePrecision("fp4").has_value());
  EXPECT_EQ(PrecisionNames(), "bf16, fp16, fp8, tf32, fp32");
  EXPECT_EQ(BytesPerElement(Precision::kBf16), 2.0);
  EXPECT_EQ(BytesPerElement(Precision::kFp8), 1.0);
  EXPECT_EQ(BytesPerElement(Precision::kTf32), 4.0);
  EXPECT_EQ(HighPrecisionFor(Precision::kFp8), Precision::kBf16);
  EXPECT_EQ(HighPrecisionFor(Precision::kFp16), Precision::kFp16);
}

TEST(Devices, TheIssuePresetsExistUnderTheirCanonicalNames) {
  for (const char* name : {"V100-SXM2-32GB", "A100-SXM-40GB", "A100-SXM-80GB", "H100-SXM",
                           "H800-SXM", "H200-SXM", "B200", "GB200", "MI300X"}) {
    const DeviceSpec* device = FindDevice(name);
    ASSERT_NE(device, nullptr) << name;
    EXPECT_EQ(device->name, name);
  }
  EXPECT_EQ(FindDevice("h100-sxm"), nullptr);  // case-sensitive
  EXPECT_EQ(FindDevice("H100"), nullptr);
  EXPECT_EQ(FindDevice(""), nullptr);
}

TEST(Devices, NamesListEveryPresetOnceForErrorMessages) {
  const std::string names = DeviceNames();
  std::set<std::string_view> seen;
  for (const DeviceSpec& device : AllDevices()) {
    EXPECT_NE(names.find(device.name), std::string::npos) << device.name;
    EXPECT_TRUE(seen.insert(device.name).second) << "duplicate " << device.name;
  }
  EXPECT_EQ(names.substr(0, 16), "V100-SXM2-32GB, ");
}

// Peak = boost clock x FMA per clock per tensor core x 2 x tensor cores (ml-engineering's
// derivation); the presets carry the vendors' rounded figures.
TEST(Devices, PeaksMatchTheClockTimesTensorCoreArithmetic) {
  const auto peak = [](double mhz, double fma, double cores) {
    return mhz * 1e6 * fma * 2 * cores / 1e12;
  };
  EXPECT_NEAR(FindDevice("H100-SXM")->peak_TFLOPS[Index(Precision::kBf16)],
              peak(1830, 512, 4 * 132), 0.5);  // 989.4
  EXPECT_NEAR(FindDevice("A100-SXM-80GB")->peak_TFLOPS[Index(Precision::kBf16)],
              peak(1410, 256, 4 * 108), 0.5);  // 311.9
  EXPECT_NEAR(FindDevice("MI300X")->peak_TFLOPS[Index(Precision::kBf16)], peak(2100, 256, 4 * 304),
              0.1);  // 1307.4
  EXPECT_NEAR(FindDevice("V100-SXM2-32GB")->peak_TFLOPS[Index(Precision::kFp16)],
              peak(1530, 64, 8 * 80), 0.5);  // 125.3
}

TEST(Devices, Fp8IsTwiceBf16WhereItExistsAndAbsentBeforeHopper) {
  for (const DeviceSpec& d : AllDevices()) {
    if (d.Supports(Precision::kFp8)) {
      // Exactly 2x before the vendors' rounding (989.4 x 2 = 1978.8, printed 1979).
      EXPECT_NEAR(d.peak_TFLOPS[Index(Precision::kFp8)] / d.peak_TFLOPS[Index(Precision::kBf16)],
                  2.0, 2e-3)
          << d.name;
    }
    for (Precision p : kAllPrecisions) {
      const double c = d.matmul_ceiling[Index(p)];
      if (d.Supports(p)) {
        EXPECT_GT(c, 0.4) << d.name << " " << ToString(p);
        EXPECT_LE(c, 1.0) << d.name << " " << ToString(p);
      } else {
        EXPECT_EQ(c, 0.0) << d.name << " " << ToString(p);
      }
    }
    EXPECT_GT(d.sm_count, 0u) << d.name;
    EXPECT_GT(d.hbm_GBps, 0.0) << d.name;
    EXPECT_GT(d.scale_up_GBps, 0.0) << d.name;
    EXPECT_LE(d.scale_up_peer_GBps, d.scale_up_GBps) << d.name;
  }
  EXPECT_FALSE(FindDevice("A100-SXM-80GB")->Supports(Precision::kFp8));
  EXPECT_FALSE(FindDevice("V100-SXM2-32GB")->Supports(Precision::kBf16));
}

// The ceilings are the measured MAMF over the peak: peak x ceiling gives the measurement back.
TEST(Devices, CeilingsGiveTheMeasuredMatmulRatesBack) {
  const auto mamf = [](const char* name, Precision p) {
    return FindDevice(name)->MatmulFlopsPerNs(p) / 1000.0;  // TFLOP/s
  };
  EXPECT_NEAR(mamf("A100-SXM-80GB", Precision::kBf16), 271.2, 1e-9);
  EXPECT_NEAR(mamf("A100-SXM-40GB", Precision::kBf16), 271.2, 1e-9);  // derived: same chip
  EXPECT_NEAR(mamf("H100-SXM", Precision::kBf16), 794.5, 1e-9);
  EXPECT_NEAR(mamf("H100-SXM", Precision::kFp8), 1402.6, 1e-9);
  EXPECT_NEAR(mamf("H800-SXM", Precision::kFp8), 1402.6, 1e-9);  // derived: H100's
  EXPECT_NEAR(mamf("H200-SXM", Precision::kBf16), 794.5, 1e-9);  // "H200 is the same"
  EXPECT_NEAR(mamf("H200-SXM", Precision::kFp8), 1453.4, 1e-9);
  EXPECT_NEAR(mamf("B200", Precision::kBf16), 1745.0, 1e-9);
  EXPECT_NEAR(mamf("B200", Precision::kFp8), 3432.5, 1e-9);
  EXPECT_NEAR(mamf("GB200", Precision::kBf16), 1822.0, 1e-9);
  EXPECT_NEAR(mamf("GB200", Precision::kFp8), 3615.6, 1e-9);
  EXPECT_NEAR(mamf("MI300X", Precision::kBf16), 668.4, 1e-9);
  EXPECT_NEAR(mamf("MI300X", Precision::kFp8), 2 * 668.4, 1e-9);  // derived: BF16 fraction
  EXPECT_NEAR(mamf("V100-SXM2-32GB", Precision::kFp16), 83.0, 1e-9);
}

TEST(Devices, MemoryAndScaleUpFigures) {
  const DeviceSpec& h100 = *FindDevice("H100-SXM");
  EXPECT_EQ(h100.hbm_GiB, 80);
  EXPECT_EQ(h100.hbm_GBps, 3350);
  EXPECT_NEAR(h100.AchievableBytesPerNs(), 3015.0, 1e-9);  // ~QuACK's 3.01 TB/s
  EXPECT_EQ(FindDevice("H200-SXM")->hbm_GiB, 141);
  EXPECT_EQ(FindDevice("A100-SXM-40GB")->hbm_GBps, 1555);
  EXPECT_EQ(FindDevice("A100-SXM-80GB")->hbm_GBps, 2039);
  // H800: the H100 with NVLink cut from 900 to 400 GB/s bidirectional.
  EXPECT_EQ(FindDevice("H800-SXM")->scale_up_GBps, 200);
  EXPECT_EQ(h100.scale_up_GBps, 450);
  EXPECT_EQ(FindDevice("GB200")->scale_up_domain, 72u);
  // MI300X: 64 GB/s to each of 7 peers.
  EXPECT_EQ(FindDevice("MI300X")->scale_up_peer_GBps * 7, FindDevice("MI300X")->scale_up_GBps);
}

TEST(Devices, CheckPrecisionNamesWhatTheDeviceRuns) {
  EXPECT_FALSE(CheckPrecision(*FindDevice("H100-SXM"), Precision::kFp8).has_value());
  const auto why = CheckPrecision(*FindDevice("A100-SXM-80GB"), Precision::kFp8);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "A100-SXM-80GB has no fp8 arithmetic; it runs: bf16, fp16, tf32, fp32");
  const auto v100 = CheckPrecision(*FindDevice("V100-SXM2-32GB"), Precision::kBf16);
  ASSERT_TRUE(v100.has_value());
  EXPECT_EQ(*v100, "V100-SXM2-32GB has no bf16 arithmetic; it runs: fp16, fp32");
}

TEST(Devices, AttentionKernelPerGeneration) {
  EXPECT_EQ(FindDevice("V100-SXM2-32GB")->attention.table, nullptr);
  EXPECT_EQ(FindDevice("A100-SXM-80GB")->attention.table, &kFlashAttention2A100);
  EXPECT_EQ(FindDevice("H100-SXM")->attention.table, &kCudnnH100);
  EXPECT_EQ(FindDevice("H100-SXM")->attention.scale, 1.0);
  EXPECT_NEAR(FindDevice("B200")->attention.scale, 1745.0 / 794.5, 1e-12);
  EXPECT_EQ(FindDevice("MI300X")->attention.table, &kFlashAttention2H100);
}

}  // namespace
}  // namespace hfsim
