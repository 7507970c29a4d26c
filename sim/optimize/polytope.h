// The feasible bandwidth allocations: linear rows lower <= sum_d c_d B_d <= upper over the
// per-NPU bandwidths B (GB/s), each labelled with the scenario key it came from so an
// infeasible set can be reported by name. LPs over it are solved with GLPK.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "base/expected.h"
#include "sim/scenario/optimize-spec.h"

namespace hfsim {

struct LinearRow {
  std::vector<double> coefficients;  ///< one per dimension
  double lower = -std::numeric_limits<double>::infinity();
  double upper = std::numeric_limits<double>::infinity();
  std::string label;  ///< e.g. "optimize.bounds[1].max_GBps (B_2 <= 40 GB/s)"
};

class Polytope {
 public:
  explicit Polytope(uint32_t dimension_count) : m_dimension_count(dimension_count) {}

  void Add(LinearRow row) { m_rows.push_back(std::move(row)); }
  const std::vector<LinearRow>& Rows() const { return m_rows; }
  uint32_t DimensionCount() const { return m_dimension_count; }

  /// Whether b satisfies every row within `tolerance` (relative to the row's scale).
  bool Contains(const std::vector<double>& b, double tolerance) const;

  /// kFailed: GLPK stopped without an answer (a limit, a numerical failure; `failure` says
  /// which), which proves nothing about the constraints.
  enum class LpStatus { kOptimal, kInfeasible, kUnbounded, kFailed };
  struct LpResult {
    LpStatus status = LpStatus::kInfeasible;
    double value = 0.0;
    std::vector<double> point;
    std::string failure;
  };
  /// min objective . B over the polytope (B >= 0 always).
  LpResult Minimise(const std::vector<double>& objective) const;
  /// Labels of an irreducible subset of rows that admits no point (a deletion filter: drop each
  /// row in turn and keep it out while the rest stays infeasible). Empty when feasible.
  std::vector<std::string> Conflict() const;

 private:
  static LpResult Solve(const std::vector<LinearRow>& rows, uint32_t dimension_count,
                        const std::vector<double>& objective);
  uint32_t m_dimension_count;
  std::vector<LinearRow> m_rows;
};

/// The rows of an "optimize" section on a fabric of `dimension_count` dimensions: the total,
/// bounds, fixed dimensions, linear constraints, and a floor of OptimizeSpec::kDefaultMinGBps
/// on every dimension that has neither a lower bound nor a fixed value.
Polytope BuildPolytope(const OptimizeSpec& spec, uint32_t dimension_count);

/// The row "network cost <= budget_usd" (cost = NPUs * sum_d unit_d B_d).
LinearRow BudgetRow(const std::vector<double>& marginal_usd_per_GBps, double budget_usd);

}  // namespace hfsim
