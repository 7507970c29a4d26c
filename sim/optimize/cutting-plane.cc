#include "sim/optimize/cutting-plane.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <glpk.h>

#include "sim/optimize/glpk-simplex.h"

namespace hfsim {

namespace {

// The level sits this far from the lower bound towards the best value; 0.3 is the usual choice
// (Lemarechal, Nemirovskii, Nesterov 1995).
constexpr double kLevelFraction = 0.3;

}  // namespace

std::string_view ToString(SolveStatus status) {
  switch (status) {
    case SolveStatus::kConverged: return "converged";
    case SolveStatus::kIterationLimit: return "iteration limit reached";
    case SolveStatus::kLpFailed: return "LP failed";
  }
  return "?";
}


CuttingPlaneSolver::CuttingPlaneSolver(const TimeModel& model, const Polytope& polytope,
                                       const std::vector<double>& start,
                                       const SolverOptions& options)
    : m_model(model),
      m_options(options),
      m_dimensions(polytope.DimensionCount()),
      m_lp(glp_create_prob()),
      m_glpk_resets(GlpkResets()) {
  glp_term_out(GLP_OFF);
  m_scale_ns = std::max(model.TimeNs(start), 1e-9);
  glp_set_obj_dir(m_lp, GLP_MIN);
  const int columns = static_cast<int>(m_dimensions) + 2;  // B_1..B_D, t, s
  glp_add_cols(m_lp, columns);
  for (int j = 1; j <= static_cast<int>(m_dimensions); ++j) glp_set_col_bnds(m_lp, j, GLP_LO, 0.0, 0.0);
  const int t = static_cast<int>(m_dimensions) + 1;
  const int s = t + 1;
  glp_set_col_bnds(m_lp, t, GLP_LO, 0.0, 0.0);  // a time is never negative
  glp_set_col_bnds(m_lp, s, GLP_FX, 0.0, 0.0);
  std::vector<int> index(columns + 1);
  std::vector<double> value(columns + 1);
  auto add_row = [&](const std::vector<double>& c, int type, double lower, double upper) {
    const int i = glp_add_rows(m_lp, 1);
    int count = 0;
    for (uint32_t d = 0; d < m_dimensions; ++d) {
      if (c[d] == 0.0) continue;
      index[++count] = static_cast<int>(d + 1);
      value[count] = c[d];
    }
    glp_set_mat_row(m_lp, i, count, index.data(), value.data());
    glp_set_row_bnds(m_lp, i, type, lower, upper);
    return i;
  };
  for (const LinearRow& row : polytope.Rows()) {
    const bool lo = std::isfinite(row.lower);
    const bool up = std::isfinite(row.upper);
    const int type = lo && up ? (row.lower == row.upper ? GLP_FX : GLP_DB)
                              : lo ? GLP_LO : up ? GLP_UP : GLP_FR;
    double norm = 0.0;
    for (double c : row.coefficients) norm = std::max(norm, std::abs(c));
    std::vector<double> scaled = row.coefficients;
    for (double& c : scaled) c /= norm;
    add_row(scaled, type, lo ? row.lower / norm : 0.0, up ? row.upper / norm : 0.0);
  }
  m_extra_row = add_row(std::vector<double>(m_dimensions, 0.0), GLP_FR, 0.0, 0.0);
  // |B_d - centre_d| <= s as B_d - s <= centre_d and B_d + s >= centre_d; free until a level
  // step sets the centre.
  m_proximity_row = glp_add_rows(m_lp, 2 * static_cast<int>(m_dimensions));
  for (uint32_t d = 0; d < m_dimensions; ++d) {
    const int idx[3] = {0, static_cast<int>(d + 1), s};
    const double minus[3] = {0.0, 1.0, -1.0};
    const double plus[3] = {0.0, 1.0, 1.0};
    glp_set_mat_row(m_lp, m_proximity_row + 2 * static_cast<int>(d), 2, idx, minus);
    glp_set_mat_row(m_lp, m_proximity_row + 2 * static_cast<int>(d) + 1, 2, idx, plus);
    glp_set_row_bnds(m_lp, m_proximity_row + 2 * static_cast<int>(d), GLP_FR, 0.0, 0.0);
    glp_set_row_bnds(m_lp, m_proximity_row + 2 * static_cast<int>(d) + 1, GLP_FR, 0.0, 0.0);
  }
  m_first_cut_row = glp_get_num_rows(m_lp) + 1;
}

CuttingPlaneSolver::~CuttingPlaneSolver() {
  // A GLPK reset elsewhere (a polytope LP's internal error) freed m_lp with the environment.
  if (m_lp != nullptr && m_glpk_resets == GlpkResets()) glp_delete_prob(m_lp);
}

double CuttingPlaneSolver::Evaluate(const std::vector<double>& b) {
  ++m_evaluations;
  const TimeGradient f = m_model.Evaluate(b);
  // t >= (f + g . (B - b)) / scale  <=>  t - (g / scale) . B >= (f - g . b) / scale
  const int columns = static_cast<int>(m_dimensions) + 1;
  std::vector<int> index(columns + 1);
  std::vector<double> value(columns + 1);
  double rhs = f.value;
  int count = 0;
  for (uint32_t d = 0; d < m_dimensions; ++d) {
    rhs -= f.gradient[d] * b[d];
    if (f.gradient[d] == 0.0) continue;
    index[++count] = static_cast<int>(d + 1);
    value[count] = -f.gradient[d] / m_scale_ns;
  }
  index[++count] = columns;
  value[count] = 1.0;
  const int i = glp_add_rows(m_lp, 1);
  glp_set_mat_row(m_lp, i, count, index.data(), value.data());
  glp_set_row_bnds(m_lp, i, GLP_LO, rhs / m_scale_ns, 0.0);
  return f.value;
}

double CuttingPlaneSolver::SolveLp() {
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.meth = GLP_DUALP;  // cuts added since the last solve leave the basis dual feasible
  // Tighter than GLPK's 1e-7 defaults so the bound can certify gaps down to
  // OptimizeSpec::kMinTolerance (docs/optimize.md section 8, "Tolerance floor").
  parm.tol_bnd = 1e-10;
  parm.tol_dj = 1e-10;
  if (m_options.simplex_iteration_limit > 0) parm.it_lim = m_options.simplex_iteration_limit;
  std::string glpk_error;
  auto lost = [&] {
    // GLPK freed m_lp with its environment: this solver can solve nothing more.
    m_lp = nullptr;
    m_lp_failure = fmt::format("GLPK stopped on an internal error ({})", glpk_error);
    return NAN;
  };
  int code = GuardedSimplex(m_lp, parm, glpk_error);
  if (code == kGlpkError) return lost();
  // A stale basis can upset the warm start: retry from scratch. Cuts taken near a bandwidth
  // floor have gradients orders of magnitude above the others, and the dual simplex can then
  // stall on the badly scaled rows (LIBRA's Turing-NLG 3-D time x cost inputs ran it to the
  // iteration limit): next GLPK's own scaling, then the primal simplex on the scaled rows.
  struct Attempt {
    bool scale;
    int method;
  };
  for (const Attempt attempt :
       {Attempt{false, GLP_DUALP}, Attempt{true, GLP_DUALP}, Attempt{true, GLP_PRIMAL}}) {
    if (code == 0 && glp_get_status(m_lp) == GLP_OPT) break;
    if (attempt.scale) glp_scale_prob(m_lp, GLP_SF_AUTO);
    glp_std_basis(m_lp);
    parm.meth = attempt.method;
    code = GuardedSimplex(m_lp, parm, glpk_error);
    if (code == kGlpkError) return lost();
  }
  if (code != 0 || glp_get_status(m_lp) != GLP_OPT) {
    m_lp_failure = LpFailureReason(code, glp_get_status(m_lp));
    return NAN;
  }
  return glp_get_obj_val(m_lp);
}

std::vector<double> CuttingPlaneSolver::LpPoint() const {
  std::vector<double> b(m_dimensions);
  for (uint32_t d = 0; d < m_dimensions; ++d) {
    b[d] = std::max(glp_get_col_prim(m_lp, static_cast<int>(d + 1)), 0.0);
  }
  return b;
}

ConvexSolution CuttingPlaneSolver::Minimise(const std::optional<LinearRow>& extra,
                                            const std::vector<double>& start,
                                            double tolerance) {
  const uint32_t max_iterations = m_options.max_iterations;
  if (m_lp != nullptr && m_glpk_resets != GlpkResets()) {
    m_lp = nullptr;
    m_lp_failure = "GLPK was reset by an internal error in another LP";
  }
  if (m_lp == nullptr) {
    ConvexSolution failed;
    failed.bandwidth_GBps = start;
    failed.time_ns = m_model.TimeNs(start);
    failed.status = SolveStatus::kLpFailed;
    failed.lp_failure = "an earlier internal GLPK error reset GLPK: " + m_lp_failure;
    return failed;
  }
  const int t = static_cast<int>(m_dimensions) + 1;
  const int s = t + 1;
  {
    std::vector<int> index(m_dimensions + 1);
    std::vector<double> value(m_dimensions + 1);
    int count = 0;
    // Rows are normalised to a largest coefficient of 1: a budget row in $ next to cuts in
    // units of the time scale would span nine orders of magnitude and defeat the tolerances.
    double norm = 1.0;
    if (extra) {
      norm = 0.0;
      for (double c : extra->coefficients) norm = std::max(norm, std::abs(c));
      for (uint32_t d = 0; d < m_dimensions; ++d) {
        index[++count] = static_cast<int>(d + 1);
        value[count] = extra->coefficients[d] / norm;
      }
    }
    glp_set_mat_row(m_lp, m_extra_row, count, index.data(), value.data());
    const bool lo = extra && std::isfinite(extra->lower);
    const bool up = extra && std::isfinite(extra->upper);
    glp_set_row_bnds(m_lp, m_extra_row, lo && up ? GLP_DB : lo ? GLP_LO : up ? GLP_UP : GLP_FR,
                     lo ? extra->lower / norm : 0.0, up ? extra->upper / norm : 0.0);
  }
  // Start from no cuts: cuts from other budgets are valid but pile up nearly parallel rows that
  // upset the simplex's tolerances, and a fresh solve takes only a few dozen evaluations.
  const int cut_rows = glp_get_num_rows(m_lp) - m_first_cut_row + 1;
  if (cut_rows > 0) {
    std::vector<int> rows(cut_rows + 1);
    for (int r = 0; r < cut_rows; ++r) rows[r + 1] = m_first_cut_row + r;
    glp_del_rows(m_lp, cut_rows, rows.data());
    glp_std_basis(m_lp);
  }
  m_scale_ns = std::max(m_model.TimeNs(start), 1e-9);
  ConvexSolution best;
  best.bandwidth_GBps = start;
  best.time_ns = Evaluate(start);
  double lower = 0.0;
  for (best.iterations = 1; best.iterations <= max_iterations; ++best.iterations) {
    // Kelley step: the cuts' minimum is a lower bound.
    glp_set_obj_coef(m_lp, t, 1.0);
    glp_set_obj_coef(m_lp, s, 0.0);
    glp_set_col_bnds(m_lp, t, GLP_LO, 0.0, 0.0);
    glp_set_col_bnds(m_lp, s, GLP_FX, 0.0, 0.0);
    for (uint32_t r = 0; r < 2 * m_dimensions; ++r) {
      glp_set_row_bnds(m_lp, m_proximity_row + static_cast<int>(r), GLP_FR, 0.0, 0.0);
    }
    const double bound = SolveLp();
    if (std::isnan(bound)) {
      // No bound, so no certificate: an internal failure, not an iteration limit.
      best.status = SolveStatus::kLpFailed;
      best.lp_failure = fmt::format(
          "GLPK could not solve the lower-bound LP of cutting-plane iteration {}{}: {}",
          best.iterations, m_lp == nullptr ? "" : " (also retried from the standard basis, scaled, and by the primal simplex)",
          m_lp_failure);
      break;
    }
    lower = std::max(lower, std::min(bound * m_scale_ns, best.time_ns));
    best.gap = (best.time_ns - lower) / best.time_ns;
    if (best.gap <= tolerance) {
      best.converged = true;
      break;
    }
    std::vector<double> next = LpPoint();
    // Level step: nearest point to the best one where the cuts allow the level.
    const double level = lower + kLevelFraction * (best.time_ns - lower);
    glp_set_obj_coef(m_lp, t, 0.0);
    glp_set_obj_coef(m_lp, s, 1.0);
    glp_set_col_bnds(m_lp, t, GLP_DB, 0.0, level / m_scale_ns);
    glp_set_col_bnds(m_lp, s, GLP_LO, 0.0, 0.0);
    for (uint32_t d = 0; d < m_dimensions; ++d) {
      const double centre = best.bandwidth_GBps[d];
      glp_set_row_bnds(m_lp, m_proximity_row + 2 * static_cast<int>(d), GLP_UP, 0.0, centre);
      glp_set_row_bnds(m_lp, m_proximity_row + 2 * static_cast<int>(d) + 1, GLP_LO, centre, 0.0);
    }
    if (!std::isnan(SolveLp())) {
      next = LpPoint();
    } else if (m_lp == nullptr) {
      best.status = SolveStatus::kLpFailed;
      best.lp_failure = fmt::format(
          "GLPK could not solve the level-step LP of cutting-plane iteration {}: {}",
          best.iterations, m_lp_failure);
      break;
    }
    const double value = Evaluate(next);
    if (value < best.time_ns) {
      best.time_ns = value;
      best.bandwidth_GBps = next;
    }
  }
  best.iterations = std::min(best.iterations, max_iterations);
  best.lower_bound_ns = lower;
  best.gap = (best.time_ns - lower) / best.time_ns;
  best.converged = best.status != SolveStatus::kLpFailed && best.gap <= tolerance;
  if (best.status != SolveStatus::kLpFailed) {
    best.status = best.converged ? SolveStatus::kConverged : SolveStatus::kIterationLimit;
  }
  return best;
}

}  // namespace hfsim
