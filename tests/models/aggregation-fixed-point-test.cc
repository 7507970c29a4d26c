// Fixed-point conversion: W-worker sums decode to the float sum within the stated bound for both
// schemes (checked against a long-double reference), and the int32 edges saturate or wrap as
// specified.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "models/aggregation/fixed-point.h"

namespace hfsim {
namespace {

constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
constexpr int32_t kMin = std::numeric_limits<int32_t>::min();

TEST(FixedPoint, BlockExponentIsFrexpOfLargestMagnitude) {
  const std::vector<float> block = {0.25f, -3.0f, 1.5f};  // 3 = 0.75 * 2^2
  EXPECT_EQ(BlockExponent(block), 2);
  const std::vector<float> exact = {4.0f};  // 4 = 0.5 * 2^3: |x| < 2^e is strict
  EXPECT_EQ(BlockExponent(exact), 3);
  EXPECT_EQ(BlockExponent(std::vector<float>{0.0f, -0.0f}), kMinBlockExponent);
  EXPECT_EQ(BlockExponent(std::vector<float>{INFINITY, 0.5f}), 0);
}

TEST(FixedPoint, SwitchMlScaleIsInt32MaxOverWorkersTimesTwoToTheE) {
  AggregationSwitchSpec spec;
  spec.workers = 8;
  spec.value_bits = 31;  // wide enough that SwitchML's numerator binds
  EXPECT_EQ(QuantisationLimit(spec), kMax / 8);
  EXPECT_DOUBLE_EQ(QuantisationScale(spec, 3), (kMax / 8) / 8.0);
  spec.value_bits = 20;
  EXPECT_EQ(QuantisationLimit(spec), (1 << 20) - 1);
  spec.scheme = FixedPointScheme::kFixedScale;
  spec.fixed_scale = 1e6;
  EXPECT_DOUBLE_EQ(QuantisationScale(spec, 3), 1e6);
}

// Sums W random workers' values through the integer path and checks the decoded sum.
void CheckSumsWithinBound(AggregationSwitchSpec spec, double magnitude, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<std::vector<float>> x(spec.workers, std::vector<float>(1));
    int32_t exponent = kMinBlockExponent;
    for (auto& w : x) {
      w[0] = value(rng) * static_cast<float>(magnitude);
      exponent = std::max(exponent, BlockExponent(w));
    }
    const double scale = QuantisationScale(spec, exponent);
    const int64_t limit = QuantisationLimit(spec);
    int32_t sum = 0;
    long double reference = 0.0L;
    for (const auto& w : x) {
      ASSERT_TRUE(QuantisesWithoutClamping(w[0], scale, limit));
      sum = AddInt32(sum, Quantise(w[0], scale, limit), spec.overflow);
      reference += w[0];
    }
    const double error = std::fabs(static_cast<double>(reference) - Dequantise(sum, scale));
    ASSERT_LE(error, SumErrorBound(spec, scale)) << "trial " << trial;
  }
}

TEST(FixedPoint, BlockExponentSumsWithinBound) {
  for (uint32_t workers : {1u, 2u, 7u, 32u}) {
    AggregationSwitchSpec spec;
    spec.workers = workers;
    spec.value_bits = WidestSafeValueBits(workers);
    for (double magnitude : {1e-30, 1e-3, 1.0, 1e20}) {
      CheckSumsWithinBound(spec, magnitude, workers * 1000 + 7);
    }
  }
}

TEST(FixedPoint, FixedScaleSumsWithinBound) {
  AggregationSwitchSpec spec;
  spec.scheme = FixedPointScheme::kFixedScale;
  spec.fixed_scale = 1e6;
  spec.overflow = OverflowBehaviour::kSaturate;
  spec.value_bits = 31;
  spec.workers = 16;
  CheckSumsWithinBound(spec, 100.0, 3);  // 16 * 1e8 < 2^31: no saturation
}

TEST(FixedPoint, BoundIsTightToHalfAUnitPerWorker) {
  // Every worker rounds x * scale = 0.5 up to 1: the error is exactly W / (2 * scale).
  AggregationSwitchSpec spec;
  spec.scheme = FixedPointScheme::kFixedScale;
  spec.fixed_scale = 4.0;
  spec.workers = 3;
  int32_t sum = 0;
  for (int w = 0; w < 3; ++w) sum = AddInt32(sum, Quantise(0.125, 4.0, 1000), spec.overflow);
  EXPECT_EQ(sum, 3);
  EXPECT_DOUBLE_EQ(Dequantise(sum, 4.0) - 0.375, 3 / (2 * 4.0));
  EXPECT_LE(3 / (2 * 4.0), SumErrorBound(spec, 4.0));
  EXPECT_EQ(Quantise(-0.125, 4.0, 1000), -1);  // half away from zero, both signs
}

TEST(FixedPoint, Int32EdgesSaturateOrWrap) {
  EXPECT_EQ(AddInt32(kMax, 1, OverflowBehaviour::kSaturate), kMax);
  EXPECT_EQ(AddInt32(kMax, 1, OverflowBehaviour::kWrap), kMin);
  EXPECT_EQ(AddInt32(kMin, -1, OverflowBehaviour::kSaturate), kMin);
  EXPECT_EQ(AddInt32(kMin, -1, OverflowBehaviour::kWrap), kMax);
  EXPECT_EQ(AddInt32(kMax, kMax, OverflowBehaviour::kWrap), -2);
  EXPECT_EQ(AddInt32(kMax, kMin, OverflowBehaviour::kSaturate), -1);
  EXPECT_EQ(AddInt32(kMax - 5, 5, OverflowBehaviour::kSaturate), kMax);
  // ATP: 1e6 scale, three workers at 1000.0 each saturate instead of wrapping negative.
  int32_t saturated = 0;
  int32_t wrapped = 0;
  for (int w = 0; w < 3; ++w) {
    const int32_t q = Quantise(1000.0, 1e6, kMax);
    EXPECT_EQ(q, 1000000000);
    saturated = AddInt32(saturated, q, OverflowBehaviour::kSaturate);
    wrapped = AddInt32(wrapped, q, OverflowBehaviour::kWrap);
  }
  EXPECT_EQ(saturated, kMax);
  EXPECT_EQ(wrapped, static_cast<int32_t>(3000000000LL - (1LL << 32)));
}

TEST(FixedPoint, QuantiseClampsToValueWidth) {
  EXPECT_EQ(Quantise(1e30, 1.0, 1023), 1023);
  EXPECT_EQ(Quantise(-INFINITY, 1.0, 1023), -1023);
  EXPECT_EQ(Quantise(NAN, 1.0, 1023), 0);
  EXPECT_FALSE(QuantisesWithoutClamping(1023.6, 1.0, 1023));
  EXPECT_TRUE(QuantisesWithoutClamping(1023.4, 1.0, 1023));
}

}  // namespace
}  // namespace hfsim
