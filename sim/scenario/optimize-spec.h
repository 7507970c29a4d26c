// What `hfsim optimize` optimises: the network's cost model ("cost") and the objective and
// constraints on the per-NPU bandwidth of each dimension ("optimize"). Plain validated data;
// bandwidths in GB/s (= bytes/ns), money in dollars. Read by sim/scenario/optimize-section.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/name-table.h"
#include "models/cost-model.h"

namespace hfsim {

enum class OptimizeObjective { kTime, kTimeXCost, kTimeUnderBudget };
/// How the total per-NPU bandwidth binds: sum_d B_d = total, or <= total.
enum class TotalRelation { kEqual, kAtMost };
enum class LinearRelation { kAtMost, kEqual, kAtLeast };

/// Scenario spellings (optimize.objective, .total, .constraints[i].relation), also the
/// command line's (optimize --objective, --total-mode).
inline constexpr NameTable<OptimizeObjective, 3> kOptimizeObjectiveNames = {{
    {OptimizeObjective::kTime, "time"},
    {OptimizeObjective::kTimeXCost, "time_x_cost"},
    {OptimizeObjective::kTimeUnderBudget, "time_under_budget"},
}};
inline constexpr NameTable<TotalRelation, 2> kTotalRelationNames = {{
    {TotalRelation::kEqual, "equal"},
    {TotalRelation::kAtMost, "at_most"},
}};
inline constexpr NameTable<LinearRelation, 3> kLinearRelationNames = {{
    {LinearRelation::kAtMost, "<="},
    {LinearRelation::kEqual, "="},
    {LinearRelation::kAtLeast, ">="},
}};

inline std::string_view ToString(OptimizeObjective objective) {
  return NameIn(kOptimizeObjectiveNames, objective);
}
inline std::string_view ToString(TotalRelation relation) {
  return NameIn(kTotalRelationNames, relation);
}
inline std::string_view ToString(LinearRelation relation) {
  return NameIn(kLinearRelationNames, relation);
}

/// One dimension's prices: a LIBRA class, or explicit prices.
struct DimensionCostSpec {
  std::optional<CostClass> cost_class;  ///< set: prices are LibraPrices(*cost_class)
  DimensionPrices prices;
};

struct CostSpec {
  /// True when the scenario has a "cost" section (echoed only then).
  bool given = false;
  /// One entry per topology dimension, always filled (defaults: DefaultCostClass).
  std::vector<DimensionCostSpec> dimensions;
  /// $ per GB/s per dimension; empty when some dimension cannot be priced (see unit_error).
  std::vector<double> unit_usd_per_GBps;
  /// Why the defaults cannot price the fabric (a Switch in a class without switch price); the
  /// optimiser reports it. Empty when priced.
  std::string unit_error;
};

struct BandwidthBound {
  uint32_t dimension = 0;
  std::optional<double> min_GBps;
  std::optional<double> max_GBps;
};

struct FixedBandwidth {
  uint32_t dimension = 0;
  double bandwidth_GBps = 0.0;
};

/// sum_d coefficients[d] * B_d  (relation)  value_GBps.
struct LinearConstraint {
  std::vector<double> coefficients;
  LinearRelation relation = LinearRelation::kAtMost;
  double value_GBps = 0.0;
};

struct OptimizeSpec {
  CostSpec cost;
  /// True when the scenario has an "optimize" section (echoed only then).
  bool given = false;
  OptimizeObjective objective = OptimizeObjective::kTime;
  std::optional<double> budget_usd;  ///< only for kTimeUnderBudget (required there)
  std::optional<double> total_bandwidth_GBps_per_npu;
  TotalRelation total = TotalRelation::kEqual;
  std::vector<BandwidthBound> bounds;
  std::vector<FixedBandwidth> fixed;
  std::vector<LinearConstraint> linear;
  /// Budgets on the time-vs-cost frontier (time_x_cost), from the cheapest to the dearest.
  uint32_t frontier_points = 16;
  /// Relative optimality gap (upper - lower) / upper at which the solver stops.
  double tolerance = 1e-6;
  /// The accepted range of `tolerance`. Measured on the shipped configs and the zoo models
  /// (docs/optimize.md section 8): the LP bound stops improving at gaps of 1e-10 to 8e-10, so
  /// smaller tolerances run into the iteration limit, and from 4e-9 down GLPK's dual simplex
  /// can fail on the nearly parallel cuts (GPT-3 on the 4-D fabric, time_x_cost). 1e-8 keeps a
  /// margin above both.
  static constexpr double kMinTolerance = 1e-8;
  static constexpr double kMaxTolerance = 0.1;
  /// Every dimension keeps at least this much unless a bound says otherwise: the iteration
  /// time is infinite at 0 GB/s, so the optimiser's domain must stay away from it.
  static constexpr double kDefaultMinGBps = 0.01;
};

}  // namespace hfsim
