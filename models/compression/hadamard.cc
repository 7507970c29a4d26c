#include "models/compression/hadamard.h"

#include <cmath>
#include <stdexcept>

#include "base/deterministic-rng.h"

namespace hfsim {

namespace {
bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
}  // namespace

void FastWalshHadamard(Eigen::Ref<Eigen::VectorXd> x) {
  const auto n = static_cast<uint64_t>(x.size());
  if (!IsPowerOfTwo(n)) throw std::invalid_argument("FastWalshHadamard: size must be a power of two");
  for (uint64_t half = 1; half < n; half *= 2) {
    for (uint64_t start = 0; start < n; start += 2 * half) {
      for (uint64_t i = start; i < start + half; ++i) {
        const double a = x(static_cast<Eigen::Index>(i));
        const double b = x(static_cast<Eigen::Index>(i + half));
        x(static_cast<Eigen::Index>(i)) = a + b;
        x(static_cast<Eigen::Index>(i + half)) = a - b;
      }
    }
  }
  x /= std::sqrt(static_cast<double>(n));
}

RandomizedHadamard::RandomizedHadamard(uint64_t seed, uint32_t block) : m_seed(seed), m_block(block) {
  if (!IsPowerOfTwo(block)) throw std::invalid_argument("RandomizedHadamard: block must be a power of two");
}

uint64_t RandomizedHadamard::PaddedLength(uint64_t d) const {
  return (d + m_block - 1) / m_block * m_block;
}

double RandomizedHadamard::Sign(uint64_t i) const {
  // One independent bit per coordinate from the shared seed: every worker draws the same D.
  return (SplitMix64(m_seed ^ SplitMix64(i)) >> 63) != 0 ? -1.0 : 1.0;
}

Eigen::VectorXd RandomizedHadamard::Forward(const Eigen::VectorXd& x) const {
  const auto padded = static_cast<Eigen::Index>(PaddedLength(static_cast<uint64_t>(x.size())));
  Eigen::VectorXd y = Eigen::VectorXd::Zero(padded);
  for (Eigen::Index i = 0; i < x.size(); ++i) y(i) = Sign(static_cast<uint64_t>(i)) * x(i);
  for (Eigen::Index start = 0; start < padded; start += m_block) {
    FastWalshHadamard(y.segment(start, m_block));
  }
  return y;
}

Eigen::VectorXd RandomizedHadamard::Inverse(const Eigen::VectorXd& y, uint64_t d) const {
  Eigen::VectorXd x = y;
  for (Eigen::Index start = 0; start < x.size(); start += m_block) {
    FastWalshHadamard(x.segment(start, m_block));
  }
  Eigen::VectorXd out(static_cast<Eigen::Index>(d));
  for (Eigen::Index i = 0; i < out.size(); ++i) out(i) = Sign(static_cast<uint64_t>(i)) * x(i);
  return out;
}

}  // namespace hfsim
