// `hfsim optimize`'s engine: the per-dimension bandwidth allocation that minimises the
// iteration time, the time under a cost budget, or time x cost (sim/scenario/optimize-spec.h), with the
// analytical engine's model (time-model.h) solved to a certified optimum (cutting-plane.h).
//
// time_x_cost: for a budget b let T*(b) be the least time at cost <= b, a convex problem. Any
// allocation B costs c(B) and takes at least T*(c(B)), so min_B f(B) c(B) = min_b T*(b) b: the
// frontier (b, T*(b)) is swept from the cheapest to the dearest feasible allocation and the best
// product refined by a golden-section search over b around the best sweep point. Each point on
// it is certified; the 1-D search over b is not (T* b need not be unimodal), which is why the
// sweep comes first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/expected.h"
#include "sim/optimize/cutting-plane.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

struct Allocation {
  std::vector<double> bandwidth_GBps;  ///< per NPU, per dimension
  double time_ns = 0.0;                ///< iteration time (analytical engine)
  double cost_usd = 0.0;               ///< network cost (models/cost-model.h)
};

struct FrontierPoint {
  double budget_usd = 0.0;
  Allocation allocation;  ///< the fastest allocation within the budget
  double lower_bound_ns = 0.0;
  double gap = 0.0;
  uint32_t iterations = 0;  ///< cutting-plane iterations of this point's solve
};

struct OptimizeOutcome {
  OptimizeObjective objective = OptimizeObjective::kTime;
  Allocation best;
  /// No allocation satisfying the constraints (and the budget the best point was solved under)
  /// is faster than this; gap = (best.time_ns - lower_bound_ns) / best.time_ns.
  double lower_bound_ns = 0.0;
  double gap = 0.0;
  bool converged = false;  ///< gap <= tolerance (false: the iteration limit stopped a solve)
  /// How the solve of the best point ended. kLpFailed: GLPK failed in some solve (the first
  /// failure is in solver_failure) and nothing else in the outcome is meaningful.
  SolveStatus status = SolveStatus::kIterationLimit;
  std::string solver_failure;
  /// Cutting-plane iterations of the solve that produced `best` (and its bound).
  uint32_t iterations = 0;
  std::optional<double> budget_usd;  ///< the budget the best point was solved under
  /// All non-fixed dimensions the same share of the total; absent without a total.
  std::optional<Allocation> equal_split;
  bool equal_split_feasible = false;  ///< whether it also meets bounds, linear rows and budget
  /// Cheapest and dearest allocations satisfying the constraints, $.
  double min_cost_usd = 0.0;
  double max_cost_usd = 0.0;
  /// time_x_cost only: (budget, optimal time) by budget, from min_cost_usd to the cost of the
  /// fastest allocation (more budget buys no time), with the refined best point inserted.
  std::vector<FrontierPoint> frontier;
  uint64_t evaluations = 0;  ///< time-model evaluations over all solves
};

/// Solves scenario.optimize. A UserError when the scenario has no "optimize" section, when the
/// constraints admit no allocation (naming the ones that conflict), or when they leave some
/// dimension's bandwidth unbounded. An LP that GLPK fails to solve is not the user's error: the
/// outcome then has status kLpFailed. `options` are the solver's limits (tests lower them).
Expected<OptimizeOutcome> Optimize(const Scenario& scenario, const SolverOptions& options = {});

/// The equal split of the total (fixed dimensions keep their value), if the spec has a total.
std::optional<std::vector<double>> EqualSplit(const OptimizeSpec& spec, uint32_t dimension_count);

}  // namespace hfsim
