#include "workloads/zipf-sampler.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hfsim {

namespace {

// log1p(x) / x and expm1(x) / x, with their series near 0 where the quotients lose precision.
double Log1pOverX(double x) {
  if (std::fabs(x) > 1e-8) return std::log1p(x) / x;
  return 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

double Expm1OverX(double x) {
  if (std::fabs(x) > 1e-8) return std::expm1(x) / x;
  return 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
}

}  // namespace

ZipfSampler::ZipfSampler(uint64_t key_count, double exponent)
    : m_key_count(key_count), m_exponent(exponent) {
  if (key_count == 0) throw std::invalid_argument("ZipfSampler: key_count must be at least 1");
  if (!(exponent >= 0.0) || !std::isfinite(exponent)) {
    throw std::invalid_argument("ZipfSampler: exponent must be finite and >= 0");
  }
  if (exponent > 0.0) {
    m_h_integral_x1 = HIntegral(1.5) - 1.0;
    m_h_integral_n = HIntegral(static_cast<double>(key_count) + 0.5);
    m_squeeze = 2.0 - HIntegralInverse(HIntegral(2.5) - H(2.0));
  }
}

double ZipfSampler::H(double x) const { return std::exp(-m_exponent * std::log(x)); }

double ZipfSampler::HIntegral(double x) const {
  const double log_x = std::log(x);
  return Expm1OverX((1.0 - m_exponent) * log_x) * log_x;
}

double ZipfSampler::HIntegralInverse(double y) const {
  double t = y * (1.0 - m_exponent);
  if (t < -1.0) t = -1.0;  // rounding only: the exact value is > -1 on the sampled range
  return std::exp(Log1pOverX(t) * y);
}

uint64_t ZipfSampler::Sample(std::mt19937_64& engine) const {
  if (m_exponent == 0.0) {
    // Uniform: floor(u * n) with u in [0, 1) is < n for every n below 2^53.
    const auto key = static_cast<uint64_t>(UnitInterval(engine) * static_cast<double>(m_key_count));
    return std::min(key, m_key_count - 1);
  }
  const double n = static_cast<double>(m_key_count);
  while (true) {
    // u uniform on (h_integral_x1, h_integral_n]; x = H_integral^-1(u) has the continuous
    // hat density, rounded to the nearest rank k; accept k with probability h(k) / hat mass.
    const double u = m_h_integral_n + UnitInterval(engine) * (m_h_integral_x1 - m_h_integral_n);
    const double x = HIntegralInverse(u);
    double k = std::floor(x + 0.5);
    k = std::clamp(k, 1.0, n);
    if (k - x <= m_squeeze || u >= HIntegral(k + 0.5) - H(k)) {
      return static_cast<uint64_t>(k) - 1;
    }
  }
}

double ZipfProbability(uint64_t key, uint64_t key_count, double exponent) {
  double normaliser = 0.0;
  for (uint64_t r = key_count; r >= 1; --r) {  // smallest terms first: less rounding
    normaliser += std::pow(static_cast<double>(r), -exponent);
  }
  return std::pow(static_cast<double>(key + 1), -exponent) / normaliser;
}

}  // namespace hfsim
