#include "sim/optimize/polytope.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <glpk.h>

#include "sim/optimize/glpk-simplex.h"

namespace hfsim {

namespace {

std::vector<double> Unit(uint32_t dimension_count, uint32_t d) {
  std::vector<double> c(dimension_count, 0.0);
  c[d] = 1.0;
  return c;
}

int RowType(const LinearRow& row) {
  const bool has_lower = std::isfinite(row.lower);
  const bool has_upper = std::isfinite(row.upper);
  if (has_lower && has_upper) return row.lower == row.upper ? GLP_FX : GLP_DB;
  if (has_lower) return GLP_LO;
  if (has_upper) return GLP_UP;
  return GLP_FR;
}

}  // namespace

bool Polytope::Contains(const std::vector<double>& b, double tolerance) const {
  for (const LinearRow& row : m_rows) {
    double sum = 0.0;
    double scale = 1.0;
    for (uint32_t d = 0; d < m_dimension_count; ++d) {
      sum += row.coefficients[d] * b[d];
      scale = std::max(scale, std::abs(row.coefficients[d] * b[d]));
    }
    if (sum < row.lower - tolerance * scale || sum > row.upper + tolerance * scale) return false;
  }
  for (double v : b) {
    if (v < 0.0) return false;
  }
  return true;
}

Polytope::LpResult Polytope::Solve(const std::vector<LinearRow>& rows, uint32_t dimension_count,
                                   const std::vector<double>& objective) {
  glp_term_out(GLP_OFF);
  glp_prob* lp = glp_create_prob();
  glp_add_cols(lp, static_cast<int>(dimension_count));
  for (uint32_t d = 0; d < dimension_count; ++d) {
    glp_set_col_bnds(lp, static_cast<int>(d + 1), GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(lp, static_cast<int>(d + 1), objective[d]);
  }
  if (!rows.empty()) glp_add_rows(lp, static_cast<int>(rows.size()));
  std::vector<int> index(dimension_count + 1);
  std::vector<double> value(dimension_count + 1);
  for (size_t r = 0; r < rows.size(); ++r) {
    const LinearRow& row = rows[r];
    int count = 0;
    for (uint32_t d = 0; d < dimension_count; ++d) {
      if (row.coefficients[d] == 0.0) continue;
      ++count;
      index[count] = static_cast<int>(d + 1);
      value[count] = row.coefficients[d];
    }
    const int i = static_cast<int>(r + 1);
    glp_set_mat_row(lp, i, count, index.data(), value.data());
    glp_set_row_bnds(lp, i, RowType(row), std::isfinite(row.lower) ? row.lower : 0.0,
                     std::isfinite(row.upper) ? row.upper : 0.0);
  }
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_ON;  // with presolve, an infeasible or unbounded LP returns at once
  std::string glpk_error;
  const int code = GuardedSimplex(lp, parm, glpk_error);
  LpResult result;
  if (code == kGlpkError) {
    // GLPK freed the problem with its environment.
    result.status = LpStatus::kFailed;
    result.failure = "GLPK stopped on an internal error (" + glpk_error + ")";
    return result;
  }
  if (code == GLP_ENOPFS || code == GLP_ENODFS) {
    result.status = code == GLP_ENOPFS ? LpStatus::kInfeasible : LpStatus::kUnbounded;
  } else {
    const int status = glp_get_status(lp);
    if (status == GLP_OPT) {
      result.status = LpStatus::kOptimal;
      result.value = glp_get_obj_val(lp);
      for (uint32_t d = 0; d < dimension_count; ++d) {
        result.point.push_back(glp_get_col_prim(lp, static_cast<int>(d + 1)));
      }
    } else if (status == GLP_UNBND) {
      result.status = LpStatus::kUnbounded;
    } else if (code == 0 && (status == GLP_NOFEAS || status == GLP_INFEAS)) {
      result.status = LpStatus::kInfeasible;
    } else {
      // Not a proof of infeasibility: a limit, a singular basis, a numerical failure.
      result.status = LpStatus::kFailed;
      result.failure = LpFailureReason(code, status);
    }
  }
  glp_delete_prob(lp);
  return result;
}

Polytope::LpResult Polytope::Minimise(const std::vector<double>& objective) const {
  return Solve(m_rows, m_dimension_count, objective);
}

std::vector<std::string> Polytope::Conflict() const {
  const std::vector<double> zero(m_dimension_count, 0.0);
  if (Solve(m_rows, m_dimension_count, zero).status != LpStatus::kInfeasible) return {};
  std::vector<LinearRow> kept = m_rows;
  for (size_t i = kept.size(); i-- > 0;) {
    std::vector<LinearRow> without = kept;
    without.erase(without.begin() + static_cast<std::ptrdiff_t>(i));
    if (Solve(without, m_dimension_count, zero).status == LpStatus::kInfeasible) kept = without;
  }
  std::vector<std::string> labels;
  for (const LinearRow& row : kept) labels.push_back(row.label);
  return labels;
}

Polytope BuildPolytope(const OptimizeSpec& spec, uint32_t dimension_count) {
  Polytope polytope(dimension_count);
  if (spec.total_bandwidth_GBps_per_npu) {
    const double total = *spec.total_bandwidth_GBps_per_npu;
    LinearRow row{std::vector<double>(dimension_count, 1.0), -INFINITY, total, ""};
    if (spec.total == TotalRelation::kEqual) row.lower = total;
    row.label = fmt::format("optimize.total_bandwidth_GBps_per_npu (sum of B {} {} GB/s)",
                            spec.total == TotalRelation::kEqual ? "=" : "<=", total);
    polytope.Add(std::move(row));
  }
  std::vector<bool> has_floor(dimension_count, false);
  for (size_t i = 0; i < spec.bounds.size(); ++i) {
    const BandwidthBound& b = spec.bounds[i];
    if (b.min_GBps) {
      // A smaller minimum keeps the floor: the time is infinite at 0 GB/s.
      if (*b.min_GBps >= OptimizeSpec::kDefaultMinGBps) has_floor[b.dimension] = true;
      polytope.Add({Unit(dimension_count, b.dimension), *b.min_GBps, INFINITY,
                    fmt::format("optimize.bounds[{}].min_GBps (B_{} >= {} GB/s)", i, b.dimension,
                                *b.min_GBps)});
    }
    if (b.max_GBps) {
      polytope.Add({Unit(dimension_count, b.dimension), -INFINITY, *b.max_GBps,
                    fmt::format("optimize.bounds[{}].max_GBps (B_{} <= {} GB/s)", i, b.dimension,
                                *b.max_GBps)});
    }
  }
  for (size_t i = 0; i < spec.fixed.size(); ++i) {
    const FixedBandwidth& f = spec.fixed[i];
    has_floor[f.dimension] = true;
    polytope.Add({Unit(dimension_count, f.dimension), f.bandwidth_GBps, f.bandwidth_GBps,
                  fmt::format("optimize.fixed[{}] (B_{} = {} GB/s)", i, f.dimension,
                              f.bandwidth_GBps)});
  }
  for (size_t i = 0; i < spec.linear.size(); ++i) {
    const LinearConstraint& l = spec.linear[i];
    LinearRow row{l.coefficients, -INFINITY, INFINITY,
                  fmt::format("optimize.linear[{}] ({} {})", i, ToString(l.relation), l.value_GBps)};
    if (l.relation != LinearRelation::kAtMost) row.lower = l.value_GBps;
    if (l.relation != LinearRelation::kAtLeast) row.upper = l.value_GBps;
    polytope.Add(std::move(row));
  }
  for (uint32_t d = 0; d < dimension_count; ++d) {
    if (has_floor[d]) continue;
    polytope.Add({Unit(dimension_count, d), OptimizeSpec::kDefaultMinGBps, INFINITY,
                  fmt::format("the default floor of dimension {} (B_{} >= {} GB/s; give "
                              "optimize.bounds with min_GBps to change it)",
                              d, d, OptimizeSpec::kDefaultMinGBps)});
  }
  return polytope;
}

LinearRow BudgetRow(const std::vector<double>& marginal_usd_per_GBps, double budget_usd) {
  return {marginal_usd_per_GBps, -INFINITY, budget_usd,
          fmt::format("optimize.budget_usd (network cost <= {} $)", budget_usd)};
}

}  // namespace hfsim
