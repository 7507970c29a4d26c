// A small deterministic random generator (splitmix64, base/splitmix64.h) with the few
// distributions hfsim's models need. std:: distributions are implementation-defined, so results drawn through them could differ
// between standard libraries; everything here is specified bit for bit, so the same seed gives the
// same numbers on every machine.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>

#include "base/splitmix64.h"

namespace hfsim {

class DeterministicRng {
 public:
  explicit DeterministicRng(uint64_t seed) : m_state(seed) {}

  uint64_t NextU64() {
    const uint64_t out = SplitMix64(m_state);
    m_state += 0x9E3779B97F4A7C15ull;
    return out;
  }
  /// Uniform in [0, 1), 53 bits.
  double Uniform01() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [0, n), n >= 1 (Lemire's multiply-shift; the bias is below 2^-32 for the
  /// n used here, and the result is what matters for reproducibility).
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(NextU64()) * n) >> 64);
  }
  /// Standard normal by Box-Muller (one value per call; the second is discarded for simplicity).
  double Normal() {
    double u1 = Uniform01();
    while (u1 <= 0.0) u1 = Uniform01();
    const double u2 = Uniform01();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }

 private:
  uint64_t m_state;
};

}  // namespace hfsim
