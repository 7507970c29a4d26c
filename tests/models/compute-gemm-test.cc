// GEMM time (models/compute/gemm-time.h) against times worked out by hand: tile and wave
// quantization, the transposed tile, cuBLASLt's other large tiles, the ceiling, the memory
// roofline, FP8, fewer SMs.
//
// On RoundNumberDevice (10 SMs, 128 x 256 tiles, 50,000 FLOP/ns at its 0.5 ceiling, i.e.
// 5,000 per SM) one wave of full tiles with k = 4096 takes 2 x 128 x 256 x 4096 / 5,000 =
// 53,687.0912 ns whatever the number of tiles in it.
#include <gtest/gtest.h>

#include <cmath>

#include "models/compute/device.h"
#include "models/compute/gemm-time.h"
#include "tests/models/compute-test-device.h"

namespace hfsim {
namespace {

constexpr double kOneWaveNs = 2.0 * 128 * 256 * 4096 / 5000.0;

// The same device with only its tile and its transpose to choose from, as Volta and CDNA3 run
// (gemm-time.cc): the quantization rules worked out by hand without cuBLASLt's other tiles.
DeviceSpec PairOnly(DeviceSpec d) {
  d.architecture = Architecture::kCdna3;
  return d;
}

TEST(GemmTime, ExactlyOneWaveThenOneTileMoreCostsASecondWave) {
  const DeviceSpec d = PairOnly(RoundNumberDevice());
  // m = 1280: 10 tiles of 128 x 256 (n = 256), one per SM: one full wave.
  const GemmEstimate full = EstimateGemm(d, Precision::kBf16, {1280, 256, 4096});
  EXPECT_EQ(full.tiles, 10u);
  EXPECT_EQ(full.waves, 1u);
  EXPECT_DOUBLE_EQ(full.tile_efficiency, 1.0);
  EXPECT_DOUBLE_EQ(full.wave_efficiency, 1.0);
  EXPECT_NEAR(full.time_ns, kOneWaveNs, 1e-6);
  EXPECT_FALSE(full.MemoryBound());
  // One tile row more (m = 1408): 11 tiles, 2 waves; the transposed tile (256 x 128) needs
  // 6 x 2 = 12 tiles, also 2 waves, no better: the time is two waves.
  const GemmEstimate more = EstimateGemm(d, Precision::kBf16, {1408, 256, 4096});
  EXPECT_EQ(more.tiles, 11u);
  EXPECT_EQ(more.waves, 2u);
  EXPECT_NEAR(more.time_ns, 2 * kOneWaveNs, 1e-6);
  EXPECT_NEAR(more.wave_efficiency, 11.0 / 20.0, 1e-12);
}

TEST(GemmTime, TileQuantizationAPartialTileCostsAFullOne) {
  const DeviceSpec d = PairOnly(RoundNumberDevice());
  // m = 1281 = 10 x 128 + 1: the eleventh tile row holds one row but costs a full tile, and
  // the eleventh tile a second wave: as slow as m = 1408.
  const GemmEstimate e = EstimateGemm(d, Precision::kBf16, {1281, 256, 4096});
  EXPECT_NEAR(e.time_ns, 2 * kOneWaveNs, 1e-6);
  EXPECT_NEAR(e.tile_efficiency, 1281.0 / 1408.0, 1e-12);
  // m = Tm + 1 = 129: two tiles in one wave, the second almost empty.
  const GemmEstimate small = EstimateGemm(d, Precision::kBf16, {129, 256, 4096});
  EXPECT_EQ(small.tiles, 2u);
  EXPECT_NEAR(small.tile_efficiency, 129.0 / 256.0, 1e-12);
  EXPECT_NEAR(small.wave_efficiency, 2.0 / 10.0, 1e-12);
  EXPECT_NEAR(small.time_ns, kOneWaveNs, 1e-6);  // one wave, whatever it holds
}

TEST(GemmTime, TakesTheTransposedTileWhenItQuantizesBetter) {
  const DeviceSpec d = RoundNumberDevice();
  // m = 2560, n = 128: 128 x 256 tiles are half empty (20 tiles, 2 waves); 256 x 128 tiles fit
  // exactly (10 tiles, 1 wave) and are taken: one wave.
  const GemmEstimate e = EstimateGemm(d, Precision::kBf16, {2560, 128, 4096});
  EXPECT_EQ(e.tile.m, 256u);
  EXPECT_EQ(e.tile.n, 128u);
  EXPECT_EQ(e.waves, 1u);
  EXPECT_NEAR(e.time_ns, kOneWaveNs, 1e-6);
  // A tie keeps the device's tile.
  EXPECT_EQ(EstimateGemm(d, Precision::kBf16, {1280, 256, 4096}).tile.m, 128u);
}

// From Ampere on, NVIDIA devices choose among cuBLASLt's large tiles too (128 x 192, 192 x 128,
// 128 x 160, 160 x 128, 128 x 128), whichever quantizes best, as cuBLAS's heuristic picks a
// kernel per shape. m = 1408, n = 256 on the round-number device (10 SMs):
//   128 x 256: 11 x 1 = 11 tiles, 2 waves: 1408 x 256 / (20 x 32768) = 0.55
//   256 x 128:  6 x 2 = 12 tiles, 2 waves: 0.55
//   128 x 192: 11 x 2 = 22 tiles, 3 waves: 360448 / (30 x 24576) = 0.489
//   192 x 128:  8 x 2 = 16 tiles, 2 waves: 360448 / (20 x 24576) = 0.733
//   128 x 160: 11 x 2 = 22 tiles, 3 waves: 360448 / (30 x 20480) = 0.587
//   160 x 128:  9 x 2 = 18 tiles, 2 waves: 360448 / (20 x 20480) = 0.88  <- taken
//   128 x 128: 11 x 2 = 22 tiles, 3 waves: 360448 / (30 x 16384) = 0.733
// 2 x 1408 x 256 x 4096 FLOPs / (50,000 x 0.88) = 67,108.864 ns, against two waves (107,374.18)
// with the pair alone. And m = 129: 128 x 128 tiles (2 x 2 = 4 in one wave, 129 x 256 /
// (10 x 16384) = 0.2016) beat the others (2 tiles of at least 160 x 128).
TEST(GemmTime, PicksTheCublasLtTileThatQuantizesBest) {
  const DeviceSpec d = RoundNumberDevice();
  const GemmEstimate e = EstimateGemm(d, Precision::kBf16, {1408, 256, 4096});
  EXPECT_EQ(e.tile.m, 160u);
  EXPECT_EQ(e.tile.n, 128u);
  EXPECT_EQ(e.tiles, 18u);
  EXPECT_EQ(e.waves, 2u);
  EXPECT_NEAR(e.tile_efficiency * e.wave_efficiency, 0.88, 1e-12);
  EXPECT_NEAR(e.time_ns, 2.0 * 1408 * 256 * 4096 / (50000 * 0.88), 1e-6);
  EXPECT_NEAR(EstimateGemm(PairOnly(d), Precision::kBf16, {1408, 256, 4096}).time_ns,
              2 * kOneWaveNs, 1e-6);
  const GemmEstimate small = EstimateGemm(d, Precision::kBf16, {129, 256, 4096});
  EXPECT_EQ(small.tile.m, 128u);
  EXPECT_EQ(small.tile.n, 128u);
  EXPECT_EQ(small.tiles, 4u);
  EXPECT_NEAR(small.time_ns, 2.0 * 129 * 256 * 4096 / (50000 * (129.0 * 256 / 163840)), 1e-6);
  // Ties keep the larger tile: 1280 x 256 fills one wave of 128 x 256 (and 10 x 2 = 20 tiles
  // of 128 x 128 two waves, also full).
  const GemmEstimate tie = EstimateGemm(d, Precision::kBf16, {1280, 256, 4096});
  EXPECT_EQ(tie.tile.m, 128u);
  EXPECT_EQ(tie.tile.n, 256u);
}

TEST(GemmTime, ALargeAlignedGemmRunsAtTheMeasuredCeiling) {
  const DeviceSpec& h100 = *FindDevice("H100-SXM");
  // 16896 = 132 x 128 rows, 2048 = 8 x 256 columns: 1056 tiles = 8 full waves of 132.
  const GemmEstimate e = EstimateGemm(h100, Precision::kBf16, {16896, 2048, 8192});
  EXPECT_EQ(e.waves, 8u);
  EXPECT_DOUBLE_EQ(e.tile_efficiency * e.wave_efficiency, 1.0);
  EXPECT_NEAR(e.flops / e.time_ns / 1000.0, 794.5, 1e-6);  // the H100 BF16 MAMF, TFLOP/s
  EXPECT_NEAR(e.FractionOfPeak(h100, Precision::kBf16), 794.5 / 989.0, 1e-12);
}

TEST(GemmTime, SmallKIsMemoryBound) {
  const DeviceSpec d = RoundNumberDevice();
  // 1280 x 1280 x 16: compute 2 x 1280^2 x 16 / 50,000 = 1,048.576 ns (50 tiles, 5 full
  // waves); memory (1280 x 16 x 2 operands x 2 B + 1280^2 x 2 B output) / 1000 B/ns =
  // 3,358.72 ns. The roofline takes the memory time.
  const GemmEstimate e = EstimateGemm(d, Precision::kBf16, {1280, 1280, 16});
  EXPECT_NEAR(e.compute_ns, 1048.576, 1e-9);
  EXPECT_NEAR(e.memory_ns, 3358.72, 1e-9);
  EXPECT_TRUE(e.MemoryBound());
  EXPECT_NEAR(e.time_ns, 3358.72, 1e-9);
  // The same on an H100 (k = 16): memory-bound too.
  EXPECT_TRUE(
      EstimateGemm(*FindDevice("H100-SXM"), Precision::kBf16, {8192, 8192, 16}).MemoryBound());
}

TEST(GemmTime, Fp8HalvesOnlyTheComputeBoundTime) {
  const DeviceSpec d = RoundNumberDevice();  // FP8 peak 2 x BF16, same ceiling
  const double bf16 = GemmTimeNs(d, Precision::kBf16, 1280, 256, 4096);
  EXPECT_NEAR(GemmTimeNs(d, Precision::kFp8, 1280, 256, 4096), 0.5 * bf16, 1e-6);
  // Memory-bound: FP8 operands are half the bytes, the BF16 output is not:
  // (1280 x 16 x 2 x 1 B + 1280^2 x 2 B) / 1000 = 3,317.76 ns against 3,358.72.
  const GemmEstimate fp8 = EstimateGemm(d, Precision::kFp8, {1280, 1280, 16});
  EXPECT_NEAR(fp8.time_ns, 3317.76, 1e-9);
  EXPECT_GT(fp8.time_ns / GemmTimeNs(d, Precision::kBf16, 1280, 1280, 16), 0.98);
  // On an H100 the compute-bound ratio is the two measured ceilings' ratio, 794.5 / 1402.6.
  const DeviceSpec& h100 = *FindDevice("H100-SXM");
  EXPECT_NEAR(GemmTimeNs(h100, Precision::kFp8, 16896, 2048, 8192) /
                  GemmTimeNs(h100, Precision::kBf16, 16896, 2048, 8192),
              794.5 / 1402.6, 1e-9);
}

TEST(GemmTime, BatchedGemmsShareTheWaves) {
  const DeviceSpec d = RoundNumberDevice();
  // 5 GEMMs of 2 tiles each: 10 tiles, one wave, as fast as one 1280-row GEMM.
  const GemmEstimate e = EstimateGemm(d, Precision::kBf16, {256, 256, 4096, 5});
  EXPECT_EQ(e.tiles, 10u);
  EXPECT_NEAR(e.time_ns, kOneWaveNs, 1e-6);
  EXPECT_DOUBLE_EQ(e.flops, 2.0 * 256 * 256 * 4096 * 5);
}

TEST(GemmTime, FewerSmsRequantize) {
  const DeviceSpec d = PairOnly(RoundNumberDevice());
  GemmOptions nine;
  nine.available_sms = 9;
  // 10 tiles on 9 SMs: 2 waves.
  const GemmEstimate e = EstimateGemm(d, Precision::kBf16, {1280, 256, 4096}, nine);
  EXPECT_EQ(e.waves, 2u);
  EXPECT_NEAR(e.time_ns, 2 * kOneWaveNs, 1e-6);
}

TEST(GemmTime, DegenerateAndUnsupported) {
  const DeviceSpec d = RoundNumberDevice();
  EXPECT_EQ(GemmTimeNs(d, Precision::kBf16, 0, 256, 4096), 0.0);
  EXPECT_EQ(GemmTimeNs(d, Precision::kBf16, 256, 256, 4096, 0), 0.0);
  EXPECT_TRUE(std::isinf(GemmTimeNs(d, Precision::kTf32, 256, 256, 4096)));  // no TF32 here
}

TEST(LinearGemms, ThreePassesWithTheirOwnShapes) {
  const DeviceSpec d = RoundNumberDevice();
  // tokens 1280, in 256, out 2560:
  //   fprop m 1280 n 2560 k 256 | dgrad m 1280 n 256 k 2560 | wgrad m 2560 n 256 k 1280
  const LinearGemms g = EstimateLinearGemms(d, Precision::kBf16, 1280, 256, 2560);
  EXPECT_DOUBLE_EQ(g.fprop.time_ns, EstimateGemm(d, Precision::kBf16, {1280, 2560, 256}).time_ns);
  EXPECT_DOUBLE_EQ(g.dgrad.time_ns, EstimateGemm(d, Precision::kBf16, {1280, 256, 2560}).time_ns);
  GemmOptions accumulate;
  accumulate.output_bytes_per_element = 8.0;  // fp32 main_grad read + write
  EXPECT_DOUBLE_EQ(g.wgrad.time_ns,
                   EstimateGemm(d, Precision::kBf16, {2560, 256, 1280}, accumulate).time_ns);
  EXPECT_DOUBLE_EQ(g.fprop.flops, g.dgrad.flops);
  EXPECT_DOUBLE_EQ(g.fprop.flops, g.wgrad.flops);
  EXPECT_DOUBLE_EQ(g.wgrad.bytes - EstimateGemm(d, Precision::kBf16, {2560, 256, 1280}).bytes,
                   2560.0 * 256 * 6);
  EXPECT_DOUBLE_EQ(g.TotalNs(), g.ForwardNs() + g.BackwardNs());
}

// A grouped linear layer (a rank's routed experts): each pass one grouped GEMM whose tiles share
// the waves. 5 experts of 256 tokens, 256 -> 256, on the round-number device: fprop 5 x 2 = 10
// tiles of 128 x 256, one full wave (k = 256: 2 x 128 x 256 x 256 / 5,000 = 3,355.4432 ns),
// where five separate GEMMs would each take a wave of their own (4 tiles of 128 x 128 on 10 SMs,
// 40 %: 1,677.7216 ns each, 8,388.608 in all).
TEST(LinearGemms, BatchIsOneGroupedGemmPerPass) {
  const DeviceSpec d = RoundNumberDevice();
  LinearOptions grouped;
  grouped.batch = 5;
  const LinearGemms g = EstimateLinearGemms(d, Precision::kBf16, 256, 256, 256, grouped);
  EXPECT_EQ(g.fprop.tiles, 10u);
  EXPECT_EQ(g.fprop.waves, 1u);
  EXPECT_NEAR(g.fprop.time_ns, 2.0 * 128 * 256 * 256 / 5000, 1e-9);
  EXPECT_DOUBLE_EQ(g.fprop.flops, 5 * 2.0 * 256 * 256 * 256);
  EXPECT_DOUBLE_EQ(g.dgrad.time_ns, EstimateGemm(d, Precision::kBf16, {256, 256, 256, 5}).time_ns);
  const LinearGemms one = EstimateLinearGemms(d, Precision::kBf16, 256, 256, 256);
  EXPECT_NEAR(one.fprop.time_ns, 2.0 * 256 * 256 * 256 / (50000 * 0.4), 1e-9);
  EXPECT_NEAR(5 * one.fprop.time_ns, 2.5 * g.fprop.time_ns, 1e-9);
}

TEST(LinearGemms, WaveQuantizationDiffersPerPass) {
  const DeviceSpec& h100 = *FindDevice("H100-SXM");
  // Llama 3 70B QKV at TP 8, 8192 tokens: in 8192, out 1280. With the pair of tiles alone,
  // fprop and wgrad have 320 tiles of 128 x 256 (3 waves of 132, 81 %), dgrad's 8192 x 8192
  // output 2048 (16 waves, 97 %).
  const LinearGemms pair = EstimateLinearGemms(PairOnly(h100), Precision::kBf16, 8192, 8192, 1280);
  EXPECT_EQ(pair.fprop.tiles, 320u);
  EXPECT_EQ(pair.fprop.waves, 3u);
  EXPECT_EQ(pair.dgrad.tiles, 2048u);
  EXPECT_EQ(pair.dgrad.waves, 16u);
  EXPECT_GT(pair.fprop.time_ns, 1.15 * pair.dgrad.time_ns);
  // cuBLASLt's tiles fill the waves better: fprop 64 x 8 = 512 tiles of 128 x 160 in 4 waves
  // (512 / 528 = 97.0 %), dgrad 64 x 43 = 2752 of 128 x 192 in 21 waves (8192^2 / (2772 x
  // 128 x 192) = 98.5 %): still different per pass, by 1.6 % instead of 20 %.
  const LinearGemms g = EstimateLinearGemms(h100, Precision::kBf16, 8192, 8192, 1280);
  EXPECT_EQ(g.fprop.tile.n, 160u);
  EXPECT_EQ(g.fprop.tiles, 512u);
  EXPECT_EQ(g.fprop.waves, 4u);
  EXPECT_EQ(g.dgrad.tile.n, 192u);
  EXPECT_EQ(g.dgrad.tiles, 2752u);
  EXPECT_EQ(g.dgrad.waves, 21u);
  EXPECT_NEAR(g.fprop.time_ns / g.dgrad.time_ns,
              (8192.0 * 8192 / (2772.0 * 128 * 192)) / (512.0 / 528), 1e-12);
}

}  // namespace
}  // namespace hfsim
