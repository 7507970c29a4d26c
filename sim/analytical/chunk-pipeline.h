// The chunk pipeline of a multi-dimensional collective, defined once for the analytical engine
// (collective-pricing.cc) and the optimiser's time model (sim/optimize/time-model.cc):
//
//   time = sum_s t_s  +  (C - 1) * max_d W_d,      W_d = sum of t_s over the stages on d
//
// with t_s the time of stage s for one chunk (see collective-pricing.h for why). Generic over the
// number type so the optimiser can carry a gradient through the very same arithmetic; `Time`
// needs +=, * and - with doubles, construction from double, and TimeMax (which keeps the left
// operand on a tie, as std::max_element keeps the first of equal maxima).
#pragma once

#include <array>
#include <cstdint>

#include "sim/scenario/scenario-parser.h"  // ScenarioLimits::kMaxDimensions
#include "workloads/time-number.h"  // TimeMax for double

namespace hfsim {

template <typename Time>
class ChunkPipeline {
 public:
  explicit ChunkPipeline(uint32_t dimension_count) : m_dimension_count(dimension_count) {
    for (Time& busy : m_busy) busy = 0.0;
  }

  /// Stage times must be added in stage order (the sum is then bit-identical everywhere).
  void AddStage(uint32_t dimension, const Time& stage_ns) {
    m_fill += stage_ns;
    m_busy[dimension] += stage_ns;
  }

  /// One chunk's total time on dimension d (W_d).
  const Time& ChunkBusy(uint32_t dimension) const { return m_busy[dimension]; }

  /// The collective's time with `chunks` chunks.
  Time Total(double chunks) const {
    Time bottleneck = m_busy[0];
    for (uint32_t d = 1; d < m_dimension_count; ++d) bottleneck = TimeMax(bottleneck, m_busy[d]);
    return m_fill + (chunks - 1.0) * bottleneck;
  }

 private:
  uint32_t m_dimension_count;
  Time m_fill = 0.0;
  std::array<Time, ScenarioLimits::kMaxDimensions> m_busy;
};

}  // namespace hfsim
