// Draws key ids from a Zipf distribution over a finite key space, with our own arithmetic so the
// same seed gives the same keys on every standard library (std:: distributions are not specified
// bit for bit; std::mt19937_64's output is).
//
// Key id k in [0, key_count) has probability (k + 1)^-s / H(key_count, s), with
// H(n, s) = sum_{r=1..n} r^-s: key 0 is the most popular, so a "hot set" of the H most frequent
// keys is exactly the ids [0, H). s = 0 is the uniform distribution.
//
// Sampling uses rejection-inversion (W. Hormann and G. Derflinger, "Rejection-inversion to
// generate variates from monotone discrete distributions", ACM TOMACS 6(3), 1996): O(1) memory
// and expected O(1) time for any key space, exact for every s > 0 (including s = 1).
#pragma once

#include <cstdint>
#include <random>

namespace hfsim {

/// A double uniform on [0, 1) from the top 53 bits of one engine output (portable, unlike
/// std::uniform_real_distribution).
inline double UnitInterval(std::mt19937_64& engine) {
  return static_cast<double>(engine() >> 11) * 0x1.0p-53;
}

class ZipfSampler {
 public:
  /// key_count >= 1, exponent >= 0 (std::invalid_argument otherwise).
  ZipfSampler(uint64_t key_count, double exponent);

  /// One key id in [0, key_count).
  uint64_t Sample(std::mt19937_64& engine) const;

  uint64_t KeyCount() const { return m_key_count; }
  double Exponent() const { return m_exponent; }

 private:
  double H(double x) const;          ///< (x)^-s
  double HIntegral(double x) const;  ///< integral of H from 1 to x: (x^(1-s) - 1) / (1 - s)
  double HIntegralInverse(double y) const;

  uint64_t m_key_count;
  double m_exponent;
  double m_h_integral_x1 = 0.0;
  double m_h_integral_n = 0.0;
  double m_squeeze = 0.0;
};

/// The closed-form probability of key id k (for tests and reports): (k+1)^-s / H(key_count, s),
/// summing H directly (O(key_count)).
double ZipfProbability(uint64_t key, uint64_t key_count, double exponent);

}  // namespace hfsim
