#include "models/compression/thc.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hfsim {

namespace {

constexpr uint32_t kLaneMax = 255;

// Grid position v in [0, g] of a scaled coordinate, after clipping to [-T, T].
double GridPosition(double scaled, double clip, uint32_t granularity) {
  const double c = std::clamp(scaled, -clip, clip);
  return (c + clip) * granularity / (2.0 * clip);
}

// The inverse map of the mean grid value back to a scaled coordinate.
double FromGrid(double grid, double clip, uint32_t granularity) {
  return (grid - granularity / 2.0) * (2.0 * clip / granularity);
}

}  // namespace

std::vector<uint32_t> DefaultThcTable(uint32_t bits, uint32_t granularity) {
  if (bits == 4 && granularity == 30) {
    return {0, 3, 5, 7, 9, 11, 13, 14, 16, 17, 19, 21, 23, 25, 27, 30};
  }
  const uint32_t levels = 1u << bits;
  std::vector<uint32_t> table(levels);
  for (uint32_t i = 0; i < levels; ++i) {
    table[i] = static_cast<uint32_t>(std::lround(double(i) * granularity / (levels - 1)));
  }
  return table;
}

std::vector<uint32_t> ResolvedThcTable(const ThcConfig& config) {
  if (config.bits < 1 || config.bits > 8) {
    throw std::invalid_argument(fmt::format("THC bits {}: accepted 1 to 8", config.bits));
  }
  if (config.granularity < (1u << config.bits) - 1) {
    throw std::invalid_argument(fmt::format("THC granularity {}: needs at least 2^bits - 1 = {} "
                                            "for distinct levels",
                                            config.granularity, (1u << config.bits) - 1));
  }
  if (!(config.clip > 0.0)) throw std::invalid_argument("THC clip must be positive");
  std::vector<uint32_t> table =
      config.table.empty() ? DefaultThcTable(config.bits, config.granularity) : config.table;
  if (table.size() != (size_t{1} << config.bits) || table.front() != 0 ||
      table.back() != config.granularity ||
      std::adjacent_find(table.begin(), table.end(), std::greater_equal<>()) != table.end()) {
    throw std::invalid_argument(fmt::format("THC table: needs 2^{} strictly increasing levels from 0 "
                                            "to the granularity {}",
                                            config.bits, config.granularity));
  }
  return table;
}

std::vector<uint8_t> PackIndices(const std::vector<uint32_t>& indices, uint32_t bits) {
  std::vector<uint8_t> out((indices.size() * bits + 7) / 8, 0);
  uint64_t bit = 0;
  for (uint32_t index : indices) {
    for (uint32_t b = 0; b < bits; ++b, ++bit) {
      if ((index >> b) & 1u) out[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
    }
  }
  return out;
}

std::vector<uint32_t> UnpackIndices(const std::vector<uint8_t>& bytes, uint32_t bits, uint64_t count) {
  if (bytes.size() * 8 < count * bits) throw std::invalid_argument("UnpackIndices: too few bytes");
  std::vector<uint32_t> out(count, 0);
  uint64_t bit = 0;
  for (uint64_t i = 0; i < count; ++i) {
    for (uint32_t b = 0; b < bits; ++b, ++bit) {
      out[i] |= static_cast<uint32_t>((bytes[bit / 8] >> (bit % 8)) & 1u) << b;
    }
  }
  return out;
}

uint32_t StochasticTableIndex(double v, const std::vector<uint32_t>& table, double u) {
  if (v <= table.front()) return 0;
  if (v >= table.back()) return static_cast<uint32_t>(table.size() - 1);
  const auto upper = std::upper_bound(table.begin(), table.end(), v);  // table[k+1] > v
  const auto k = static_cast<uint32_t>(upper - table.begin() - 1);
  const double p = (v - table[k]) / (table[k + 1] - table[k]);
  return u < p ? k + 1 : k;
}

uint32_t MaxThcLaneWorkers(uint32_t granularity) { return kLaneMax / granularity; }

std::optional<std::string> ThcLaneProblem(uint32_t workers, uint32_t granularity) {
  if (uint64_t{workers} * granularity <= kLaneMax) return std::nullopt;
  return fmt::format("{} workers x granularity {} = {} exceeds an 8-bit lane ({}); at most {} "
                     "workers",
                     workers, granularity, uint64_t{workers} * granularity, kLaneMax,
                     MaxThcLaneWorkers(granularity));
}

ThcWorker::ThcWorker(const ThcConfig& config, uint64_t dimension, uint64_t rounding_seed)
    : m_config(config),
      m_table(ResolvedThcTable(config)),
      m_dimension(dimension),
      m_rht(config.seed, config.block),
      m_rng(rounding_seed),
      m_residual(Eigen::VectorXd::Zero(static_cast<Eigen::Index>(dimension))) {}

double ThcWorker::Prepare(const Eigen::VectorXd& gradient) {
  if (static_cast<uint64_t>(gradient.size()) != m_dimension) {
    throw std::invalid_argument("ThcWorker: gradient of the wrong length");
  }
  m_prepared = m_config.error_feedback ? Eigen::VectorXd(gradient + m_residual) : gradient;
  return m_prepared.norm();
}

std::vector<uint8_t> ThcWorker::Encode(double max_norm) {
  const Eigen::VectorXd y = m_rht.Forward(m_prepared);
  const double scale = max_norm > 0.0 ? std::sqrt(static_cast<double>(y.size())) / max_norm : 0.0;
  std::vector<uint32_t> indices(static_cast<size_t>(y.size()));
  std::vector<uint32_t> own(indices.size());
  for (Eigen::Index i = 0; i < y.size(); ++i) {
    const double v = GridPosition(y(i) * scale, m_config.clip, m_config.granularity);
    indices[static_cast<size_t>(i)] = StochasticTableIndex(v, m_table, m_rng.Uniform01());
    own[static_cast<size_t>(i)] = m_table[indices[static_cast<size_t>(i)]];
  }
  if (m_config.error_feedback) {
    m_residual = m_prepared - DecodeThc(own, 1, max_norm, m_config, m_dimension);
  }
  return PackIndices(indices, m_config.bits);
}

std::vector<uint32_t> AggregateThc(const std::vector<std::vector<uint8_t>>& packed,
                                   const ThcConfig& config, uint64_t padded_length) {
  const std::vector<uint32_t> table = ResolvedThcTable(config);
  std::vector<uint32_t> sums(padded_length, 0);
  for (const auto& worker : packed) {
    const std::vector<uint32_t> indices = UnpackIndices(worker, config.bits, padded_length);
    for (uint64_t i = 0; i < padded_length; ++i) sums[i] += table[indices[i]];
  }
  return sums;
}

Eigen::VectorXd DecodeThc(const std::vector<uint32_t>& sums, uint32_t workers, double max_norm,
                          const ThcConfig& config, uint64_t dimension) {
  const auto padded = static_cast<Eigen::Index>(sums.size());
  const double scale = max_norm > 0.0 ? std::sqrt(static_cast<double>(padded)) / max_norm : 0.0;
  Eigen::VectorXd y(padded);
  for (Eigen::Index i = 0; i < padded; ++i) {
    const double grid = static_cast<double>(sums[static_cast<size_t>(i)]) / workers;
    y(i) = scale > 0.0 ? FromGrid(grid, config.clip, config.granularity) / scale : 0.0;
  }
  return RandomizedHadamard(config.seed, config.block).Inverse(y, dimension);
}

}  // namespace hfsim
