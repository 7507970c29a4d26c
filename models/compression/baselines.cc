#include "models/compression/baselines.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace hfsim {

uint16_t FloatToHalf(float value) {
  const uint32_t f = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (f >> 16) & 0x8000u;
  const uint32_t exponent = (f >> 23) & 0xFFu;
  uint32_t mantissa = f & 0x7FFFFFu;
  if (exponent == 0xFF) {  // infinity or NaN (NaN stays NaN: keep a quiet bit)
    return static_cast<uint16_t>(sign | 0x7C00u | (mantissa != 0 ? 0x200u | (mantissa >> 13) : 0u));
  }
  const int e = static_cast<int>(exponent) - 127 + 15;  // rebias
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7C00u);  // overflow: infinity
  if (e <= 0) {
    // Subnormal half (or zero): shift the full significand into place, rounding to nearest even.
    if (e < -10) return static_cast<uint16_t>(sign);  // below half the smallest subnormal
    mantissa |= 0x800000u;
    const uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mantissa >> shift;
    const uint32_t remainder = mantissa & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mantissa >> 13);
  const uint32_t remainder = mantissa & 0x1FFFu;
  if (remainder > 0x1000u || (remainder == 0x1000u && (half & 1u))) ++half;  // may carry to inf
  return static_cast<uint16_t>(sign | half);
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (uint32_t{h} & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  const uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0) {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

TopKCompressor::TopKCompressor(uint64_t dimension, double fraction, bool error_feedback)
    : m_dimension(dimension),
      m_k(std::clamp<uint64_t>(static_cast<uint64_t>(std::llround(fraction * dimension)), 1,
                               dimension)),
      m_error_feedback(error_feedback),
      m_residual(Eigen::VectorXd::Zero(static_cast<Eigen::Index>(dimension))) {
  if (dimension == 0 || !(fraction > 0.0) || fraction > 1.0) {
    throw std::invalid_argument("TopKCompressor: needs a dimension and a fraction in (0, 1]");
  }
}

SparseVector TopKCompressor::Compress(const Eigen::VectorXd& gradient) {
  const Eigen::VectorXd u = m_error_feedback ? Eigen::VectorXd(gradient + m_residual) : gradient;
  std::vector<uint32_t> order(m_dimension);
  std::iota(order.begin(), order.end(), 0u);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(m_k), order.end(),
                    [&u](uint32_t a, uint32_t b) {
                      const double ma = std::abs(u(a)), mb = std::abs(u(b));
                      return ma != mb ? ma > mb : a < b;
                    });
  order.resize(m_k);
  std::sort(order.begin(), order.end());
  SparseVector sparse;
  sparse.index = order;
  for (uint32_t i : order) sparse.value.push_back(static_cast<float>(u(i)));
  if (m_error_feedback) m_residual = u - Decompress(sparse);
  return sparse;
}

Eigen::VectorXd TopKCompressor::Decompress(const SparseVector& sparse) const {
  Eigen::VectorXd out = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(m_dimension));
  for (size_t j = 0; j < sparse.index.size(); ++j) out(sparse.index[j]) = sparse.value[j];
  return out;
}

}  // namespace hfsim
