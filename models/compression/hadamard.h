// The randomized Hadamard transform (RHT) THC applies before quantising (docs/compression.md):
// multiply by a random +-1 diagonal D (from a seed every worker shares), then by the orthonormal
// Walsh-Hadamard matrix H in blocks of a power-of-two size. It spreads a vector's energy evenly
// over its coordinates, so after scaling they are near-Gaussian with a known spread and a fixed
// clipping range loses little. H D is orthonormal, so norms are kept and the inverse is D H.
#pragma once

#include <cstdint>

#include <Eigen/Dense>

namespace hfsim {

/// In-place orthonormal fast Walsh-Hadamard transform of x (size a power of two): H x / sqrt(n).
/// Its own inverse.
void FastWalshHadamard(Eigen::Ref<Eigen::VectorXd> x);

class RandomizedHadamard {
 public:
  /// `block`: a power of two; vectors are zero-padded to a multiple of it.
  RandomizedHadamard(uint64_t seed, uint32_t block);

  /// Padded length for a d-value vector.
  uint64_t PaddedLength(uint64_t d) const;
  /// H D x, zero-padded to PaddedLength(x.size()).
  Eigen::VectorXd Forward(const Eigen::VectorXd& x) const;
  /// D H y, truncated to the first d values.
  Eigen::VectorXd Inverse(const Eigen::VectorXd& y, uint64_t d) const;
  /// The sign of coordinate i (+1 or -1), a pure function of the seed and i.
  double Sign(uint64_t i) const;

 private:
  uint64_t m_seed;
  uint32_t m_block;
};

}  // namespace hfsim
