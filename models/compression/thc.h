// THC, homomorphic compression (Li et al., NSDI'24; docs/compression.md): workers quantise
// gradients to b-bit indices into a table of integers, the aggregator (a software parameter server
// or the switch) adds the table integers of all workers without decompressing, and every worker
// decodes the sum to the mean. Per step and worker:
//   1. u = gradient + residual (error feedback);
//   2. all workers agree on the largest ||u|| (one float each way; the caller takes the max);
//   3. y = H D u, the randomized Hadamard transform with a shared seed (hadamard.h);
//   4. scale by sqrt(D) / max_norm (so coordinates have spread about 1), clip to [-T, T];
//   5. map [-T, T] onto the integer grid [0, g] and round stochastically (unbiased) to one of the
//      two neighbouring table levels; the level's position is the b-bit index sent;
//   6. residual = u - own contribution decoded alone.
// The aggregator maps each index to its table integer and adds them: n workers' sums fit an 8-bit
// lane while n * g <= 255. Decode: y = (sum / n - g / 2) * (2T / g) / scale, then D H y.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "base/deterministic-rng.h"
#include "models/compression/hadamard.h"
#include "models/compression/thc-config.h"

namespace hfsim {

class ThcWorker {
 public:
  /// `dimension`: the gradient's length; `rounding_seed`: this worker's own stochastic rounding.
  ThcWorker(const ThcConfig& config, uint64_t dimension, uint64_t rounding_seed);

  /// Step 1: u = gradient + residual; returns ||u|| for the max-norm agreement.
  double Prepare(const Eigen::VectorXd& gradient);
  /// Steps 3-6: the packed indices of u at the agreed `max_norm` (>= this worker's norm).
  std::vector<uint8_t> Encode(double max_norm);

  const Eigen::VectorXd& Residual() const { return m_residual; }
  uint64_t PaddedLength() const { return m_rht.PaddedLength(m_dimension); }
  const ThcConfig& Config() const { return m_config; }

 private:
  ThcConfig m_config;
  std::vector<uint32_t> m_table;
  uint64_t m_dimension;
  RandomizedHadamard m_rht;
  DeterministicRng m_rng;
  Eigen::VectorXd m_prepared;
  Eigen::VectorXd m_residual;
};

/// The aggregator: per coordinate, the sum over workers of table[index]. Integer additions only.
std::vector<uint32_t> AggregateThc(const std::vector<std::vector<uint8_t>>& packed,
                                   const ThcConfig& config, uint64_t padded_length);

/// The mean of the workers' inputs, from the aggregated sums of `workers` workers.
Eigen::VectorXd DecodeThc(const std::vector<uint32_t>& sums, uint32_t workers, double max_norm,
                          const ThcConfig& config, uint64_t dimension);

}  // namespace hfsim
