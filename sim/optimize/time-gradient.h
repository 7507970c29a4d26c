// A time (ns) together with its gradient with respect to the per-dimension bandwidths
// (ns per byte/ns), so the execution graph (sim/analytical/graph-pricing.h) can be played once
// and yield both the iteration time and a subgradient for the optimiser.
//
// The value part follows exactly the arithmetic of plain doubles, so the time equals the
// analytical engine's to the last bit. TimeMax picks the larger operand's gradient (the left on
// a tie): a valid subgradient of a max of convex functions.
#pragma once

#include <array>
#include <cstdint>

namespace hfsim {

/// Most dimensions a scenario may have (ScenarioLimits::kMaxDimensions).
inline constexpr uint32_t kMaxGradientDimensions = 8;

struct TimeGradient {
  double value = 0.0;
  /// d value / d B_d, ns per (bytes/ns); entries beyond the fabric's dimensions stay 0.
  std::array<double, kMaxGradientDimensions> gradient{};

  TimeGradient() = default;
  TimeGradient(double constant) : value(constant) {}  // NOLINT: constants mix in freely

  TimeGradient& operator+=(const TimeGradient& other) {
    value += other.value;
    for (uint32_t d = 0; d < kMaxGradientDimensions; ++d) gradient[d] += other.gradient[d];
    return *this;
  }
  TimeGradient& operator-=(const TimeGradient& other) {
    value -= other.value;
    for (uint32_t d = 0; d < kMaxGradientDimensions; ++d) gradient[d] -= other.gradient[d];
    return *this;
  }
};

inline TimeGradient operator+(TimeGradient a, const TimeGradient& b) { return a += b; }
inline TimeGradient operator-(TimeGradient a, const TimeGradient& b) { return a -= b; }
inline TimeGradient operator*(double scale, TimeGradient a) {
  a.value = scale * a.value;
  for (double& g : a.gradient) g = scale * g;
  return a;
}
inline TimeGradient operator*(TimeGradient a, double scale) {
  a.value = a.value * scale;
  for (double& g : a.gradient) g = g * scale;
  return a;
}
inline void SetBandwidthDerivative(TimeGradient& time, uint32_t dimension, double derivative) {
  time.gradient[dimension] = derivative;
}
inline const TimeGradient& TimeMax(const TimeGradient& a, const TimeGradient& b) {
  // Same choice as std::max(a, b), which returns a unless a < b.
  return a.value < b.value ? b : a;
}

}  // namespace hfsim
