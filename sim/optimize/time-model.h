// The analytical engine's iteration time as a function of the per-dimension bandwidths B
// (bytes/ns, numerically GB/s), compiled once from a scenario so the optimiser and sweeps can
// evaluate it (with a subgradient) in microseconds.
//
// It is the engine's own pricer, not a copy: the scenario's execution graph compiled by
// sim/analytical/graph-pricing.h and played on a number type that carries d time / d B
// (time-gradient.h). Every collective costs sum_s (a_s + b_s / B_d(s)) + (C - 1) * max_d W_d(B)
// (sim/analytical/collective-pricing.h), a send a + bytes / (share x B_d), and the graph combines
// them with compute by + and max only, so the time is convex in B > 0. The value is the
// engine's to the last bit.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "base/expected.h"
#include "sim/analytical/graph-pricing.h"
#include "sim/optimize/time-gradient.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// Why TimeModel cannot price `scenario` with a certificate (a JSON path and the reason), or
/// nullopt. It covers training, collective and graph workloads under hfsim's pricing without
/// in-network stages: there the time is convex in the bandwidths (the optimiser's certificate
/// needs that). `optimize` refuses the rest with exit 2; `sweep` prices the rest with the
/// analytical engine itself, point by point.
std::optional<UserError> TimeModelRefusal(const Scenario& scenario);

class TimeModel {
 public:
  /// `scenario` must be accepted by TimeModelRefusal (std::invalid_argument otherwise).
  explicit TimeModel(const Scenario& scenario);

  uint32_t DimensionCount() const { return m_dimension_count; }
  /// Iteration (or collective) time in ns with bandwidth_Bpns[d] for dimension d (all > 0).
  double TimeNs(const std::vector<double>& bandwidth_Bpns) const;
  /// The same time with its gradient d time / d B_d (ns per byte/ns); a subgradient where a max
  /// has a tie.
  TimeGradient Evaluate(const std::vector<double>& bandwidth_Bpns) const;
  /// Bytes one NPU sends into each dimension per iteration (independent of B).
  const std::vector<double>& TrafficBytes() const { return m_traffic_bytes; }

 private:
  uint32_t m_dimension_count;
  GraphPricing m_graph;
  std::vector<double> m_traffic_bytes;
};

}  // namespace hfsim
