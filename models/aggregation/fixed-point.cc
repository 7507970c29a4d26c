#include "models/aggregation/fixed-point.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hfsim {

namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();

}  // namespace

int32_t BlockExponent(std::span<const float> values) {
  float largest = 0.0f;
  for (float x : values) {
    if (std::isfinite(x)) largest = std::max(largest, std::fabs(x));
  }
  if (largest == 0.0f) return kMinBlockExponent;
  int exponent = 0;
  std::frexp(largest, &exponent);  // largest = m * 2^exponent, 0.5 <= m < 1
  return std::clamp<int32_t>(exponent, kMinBlockExponent, kMaxBlockExponent);
}

int64_t QuantisationLimit(const AggregationSwitchSpec& spec) {
  const int64_t by_bits = (int64_t{1} << std::min<uint32_t>(spec.value_bits, 31)) - 1;
  if (spec.scheme == FixedPointScheme::kFixedScale) return by_bits;
  return std::min<int64_t>(by_bits, kInt32Max / std::max<uint32_t>(spec.workers, 1));
}

double QuantisationScale(const AggregationSwitchSpec& spec, int32_t exponent) {
  if (spec.scheme == FixedPointScheme::kFixedScale) return spec.fixed_scale;
  return std::ldexp(static_cast<double>(QuantisationLimit(spec)), -exponent);
}

int32_t Quantise(double x, double scale, int64_t limit) {
  if (std::isnan(x)) return 0;
  const double scaled = std::round(x * scale);
  const double bound = static_cast<double>(limit);
  return static_cast<int32_t>(std::clamp(scaled, -bound, bound));
}

bool QuantisesWithoutClamping(double x, double scale, int64_t limit) {
  return std::isfinite(x) && std::fabs(std::round(x * scale)) <= static_cast<double>(limit);
}

std::vector<int32_t> QuantiseBlock(std::span<const float> values, const AggregationSwitchSpec& spec,
                                   int32_t exponent) {
  const double scale = QuantisationScale(spec, exponent);
  const int64_t limit = QuantisationLimit(spec);
  std::vector<int32_t> out(spec.values_per_packet, 0);
  for (size_t i = 0; i < values.size() && i < out.size(); ++i) {
    out[i] = Quantise(values[i], scale, limit);
  }
  return out;
}

double Dequantise(int64_t sum, double scale) { return static_cast<double>(sum) / scale; }

int32_t AddInt32(int32_t a, int32_t b, OverflowBehaviour overflow) {
  const int64_t sum = int64_t{a} + int64_t{b};
  if (overflow == OverflowBehaviour::kSaturate) {
    return static_cast<int32_t>(std::clamp(sum, kInt32Min, kInt32Max));
  }
  // Two's-complement wrap, computed in unsigned arithmetic (signed overflow is undefined in C++).
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

double SumErrorBound(const AggregationSwitchSpec& spec, double scale) {
  return static_cast<double>(spec.workers) * 0.5 / scale * (1.0 + std::ldexp(1.0, -20));
}

}  // namespace hfsim
