// THC's settings, its table of integer levels and the packing of indices (Li et al., NSDI'24;
// docs/compression.md), apart from the worker, aggregator and decoder in thc.h: the scenario
// loader and the wire-size pricing need only these, and thc.h brings Eigen, which every file that
// includes the scenario would otherwise parse.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hfsim {

struct ThcConfig {
  uint32_t bits = 4;          ///< b: bits per index, 1..8
  uint32_t granularity = 30;  ///< g: the integer grid [0, g] the table lives on
  /// Strictly increasing, from 0 to g, 2^bits entries; empty: DefaultThcTable(bits, granularity).
  std::vector<uint32_t> table;
  double clip = 2.15;    ///< T, in units of the scaled coordinates' spread (about 1 after step 4)
  uint32_t block = 4096;  ///< RHT block, a power of two (an assumption: the paper's code uses large blocks)
  uint64_t seed = 1;     ///< shared by all workers: the same D
  bool error_feedback = true;
};

/// The paper's 4-bit table for g = 30 ({0,3,5,7,9,11,13,14,16,17,19,21,23,25,27,30}); for other
/// bits or granularities the uniform table round(i g / (2^b - 1)).
std::vector<uint32_t> DefaultThcTable(uint32_t bits, uint32_t granularity);

/// The table of `config` after defaults, checked: throws std::invalid_argument naming the problem.
std::vector<uint32_t> ResolvedThcTable(const ThcConfig& config);

/// Dense little-endian bit packing of b-bit values (two 4-bit indices per byte, low nibble first).
std::vector<uint8_t> PackIndices(const std::vector<uint32_t>& indices, uint32_t bits);
std::vector<uint32_t> UnpackIndices(const std::vector<uint8_t>& bytes, uint32_t bits, uint64_t count);

/// Index k of the table level v rounds to: between table[k] <= v <= table[k+1], the upper one with
/// probability (v - table[k]) / (table[k+1] - table[k]) (u uniform in [0, 1)), so E[table[k]] = v.
uint32_t StochasticTableIndex(double v, const std::vector<uint32_t>& table, double u);

/// The largest n with n * g <= 255: workers whose table sums fit one 8-bit switch lane.
uint32_t MaxThcLaneWorkers(uint32_t granularity);
/// Why `workers` cannot aggregate in 8-bit lanes, or nullopt when they can.
std::optional<std::string> ThcLaneProblem(uint32_t workers, uint32_t granularity);

}  // namespace hfsim
