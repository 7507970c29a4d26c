// Minimises the convex time model over a polytope to a certified optimum.
//
// A level-bundle variant of Kelley's cutting-plane method. Every evaluation of the time model f
// at a point B_k adds the cut t >= f(B_k) + g_k . (B - B_k), which lies below f everywhere
// because f is convex. The LP "min t over the cuts and the polytope" (GLPK) is then a lower
// bound L on the optimum, and the best value found an upper bound U: the gap (U - L) / U
// certifies how close the best point is. Plain Kelley jumps between far vertices; the level
// step instead moves to the point nearest (infinity norm, so it stays an LP) to the best one
// among those where the cuts promise at most L + lambda (U - L). Cuts stay valid when the
// polytope shrinks, but each solve starts afresh: old cuts pile up into nearly parallel rows that
// defeat the simplex's tolerances, and a fresh solve needs only a few dozen evaluations.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/optimize/polytope.h"
#include "sim/optimize/time-model.h"

struct glp_prob;  // GLPK's problem object; glpk.h stays out of this header

namespace hfsim {

/// How a solve ended.
enum class SolveStatus {
  kConverged,       ///< gap <= tolerance
  kIterationLimit,  ///< the cutting-plane iteration limit stopped it first
  kLpFailed,        ///< GLPK could not solve a bounding LP (ConvexSolution::lp_failure says why)
};
/// "converged", "iteration limit reached", "LP failed".
std::string_view ToString(SolveStatus status);

struct SolverOptions {
  uint32_t max_iterations = 2000;  ///< cutting-plane iterations (LP bounds) per solve
  /// GLPK's simplex iteration limit per LP (glp_smcp::it_lim); 0: none (GLPK's default). Tests
  /// set it to provoke an LP failure.
  int simplex_iteration_limit = 0;
};

struct ConvexSolution {
  std::vector<double> bandwidth_GBps;
  double time_ns = 0.0;         ///< f at bandwidth_GBps: the upper bound
  double lower_bound_ns = 0.0;  ///< LP bound: no feasible point is faster
  double gap = 0.0;             ///< (time - bound) / time
  uint32_t iterations = 0;      ///< LP bounds computed (cutting-plane iterations)
  bool converged = false;       ///< gap <= tolerance (status kConverged)
  SolveStatus status = SolveStatus::kIterationLimit;
  std::string lp_failure;       ///< status kLpFailed: which LP, and GLPK's reason
};

class CuttingPlaneSolver {
 public:
  /// `start`: a point of the polytope away from its faces (the mean of its vertices).
  CuttingPlaneSolver(const TimeModel& model, const Polytope& polytope,
                     const std::vector<double>& start, const SolverOptions& options = {});
  ~CuttingPlaneSolver();
  CuttingPlaneSolver(const CuttingPlaneSolver&) = delete;
  CuttingPlaneSolver& operator=(const CuttingPlaneSolver&) = delete;

  /// min f over the polytope and, when given, the extra row (a budget). `start` must satisfy it.
  ConvexSolution Minimise(const std::optional<LinearRow>& extra, const std::vector<double>& start,
                          double tolerance);
  uint64_t Evaluations() const { return m_evaluations; }

 private:
  double Evaluate(const std::vector<double>& b);  ///< adds a cut; returns f(b)
  double SolveLp();  ///< objective value, or NaN on failure (m_lp_failure says why)
  std::vector<double> LpPoint() const;

  const TimeModel& m_model;
  SolverOptions m_options;
  uint32_t m_dimensions;
  ::glp_prob* m_lp;
  uint64_t m_glpk_resets;  ///< GlpkResets() when m_lp was made: a later reset freed it
  int m_extra_row;       ///< row index of the optional extra row
  int m_proximity_row;   ///< first of 2 * dimensions rows |B_d - centre_d| <= s
  int m_first_cut_row;   ///< cuts are this row and all after it
  double m_scale_ns;     ///< times are stored as t / m_scale_ns in the LP
  uint64_t m_evaluations = 0;
  std::string m_lp_failure;  ///< GLPK's reason for the last failed SolveLp
};

}  // namespace hfsim
