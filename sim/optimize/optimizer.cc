#include "sim/optimize/optimizer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "models/cost-model.h"
#include "sim/optimize/cutting-plane.h"
#include "sim/optimize/polytope.h"
#include "sim/optimize/time-model.h"

namespace hfsim {

namespace {

constexpr double kContainsTolerance = 1e-9;
// Golden-section steps over the budget: the bracket shrinks to 0.618^30 ~ 5e-7 of its width.
constexpr int kBudgetSearchSteps = 30;

UserError Infeasible(const Polytope& polytope) {
  std::string list;
  for (const std::string& label : polytope.Conflict()) {
    list += (list.empty() ? "" : "; ") + label;
  }
  return UserError{"optimize", "the constraints admit no bandwidth allocation (infeasible); these "
                               "conflict: " + list};
}

// An LP over the constraints that GLPK could not finish proves nothing: the machine's failure
// (exit 1 with GLPK's reason), not the input's.
Polytope::LpResult Checked(Polytope::LpResult result, std::string_view what) {
  if (result.status == Polytope::LpStatus::kFailed) {
    throw std::runtime_error(fmt::format("optimize: GLPK could not solve the LP {}: {}", what,
                                         result.failure));
  }
  return result;
}

// The mean of the polytope's extreme points along each axis: a point well inside it (convex
// combination of feasible points), away from the faces where cuts get steep. Fails when a
// dimension's bandwidth is unbounded, and then sets `*unbounded` to that dimension when given.
// `marginal`: the polytope holds the budget row with these prices, so an unbounded dimension is
// one the budget does not bound either (it costs nothing).
Expected<std::vector<double>> Centre(const Polytope& polytope,
                                     std::optional<uint32_t>* unbounded = nullptr,
                                     const std::vector<double>* marginal = nullptr) {
  const uint32_t dims = polytope.DimensionCount();
  std::vector<double> centre(dims, 0.0);
  for (uint32_t d = 0; d < dims; ++d) {
    for (double sign : {1.0, -1.0}) {
      std::vector<double> objective(dims, 0.0);
      objective[d] = sign;
      const Polytope::LpResult r =
          Checked(polytope.Minimise(objective), "that finds the constraints' extreme points");
      if (r.status == Polytope::LpStatus::kInfeasible) return Infeasible(polytope);
      if (r.status == Polytope::LpStatus::kUnbounded) {
        if (unbounded != nullptr) *unbounded = d;
        if (marginal != nullptr) {
          return UserError{"optimize", fmt::format(
              "nothing bounds the bandwidth of dimension {} from above, so the time has no "
              "minimum: the budget does not, since dimension {} costs {} $ per GB/s (its prices "
              "in \"cost\" are 0); accepted: a price above 0 for it, "
              "\"total_bandwidth_GBps_per_npu\", a \"bounds\" entry with \"max_GBps\", or "
              "\"linear\" constraints that bound it", d, d, (*marginal)[d])};
        }
        return UserError{"optimize", fmt::format(
            "nothing bounds the bandwidth of dimension {} from above, so the time has no "
            "minimum; accepted: \"total_bandwidth_GBps_per_npu\", a \"bounds\" entry with "
            "\"max_GBps\", or \"linear\" constraints that bound it", d)};
      }
      for (uint32_t k = 0; k < dims; ++k) centre[k] += r.point[k] / (2.0 * dims);
    }
  }
  return centre;
}

Polytope WithRow(const Polytope& polytope, const LinearRow& row) {
  Polytope out = polytope;
  out.Add(row);
  return out;
}

}  // namespace

std::optional<std::vector<double>> EqualSplit(const OptimizeSpec& spec, uint32_t dimension_count) {
  if (!spec.total_bandwidth_GBps_per_npu) return std::nullopt;
  std::vector<double> split(dimension_count, -1.0);
  double rest = *spec.total_bandwidth_GBps_per_npu;
  uint32_t free_count = dimension_count;
  for (const FixedBandwidth& f : spec.fixed) {
    split[f.dimension] = f.bandwidth_GBps;
    rest -= f.bandwidth_GBps;
    --free_count;
  }
  if (free_count == 0 || rest <= 0.0) return std::nullopt;
  for (double& b : split) {
    if (b < 0.0) b = rest / free_count;
  }
  return split;
}

Expected<OptimizeOutcome> Optimize(const Scenario& scenario, const SolverOptions& options) {
  const OptimizeSpec& spec = scenario.optimize;
  if (!spec.given) {
    return UserError{"optimize", "missing; `hfsim optimize` needs an \"optimize\" section with the "
                                 "objective and the constraints (docs/scenario.md)"};
  }
  if (!spec.cost.unit_error.empty()) return UserError{"cost", spec.cost.unit_error};
  const auto dims = static_cast<uint32_t>(scenario.dimensions.size());
  uint64_t npus = 1;
  for (const Dimension& d : scenario.dimensions) npus *= d.size;
  const CostModel cost(spec.cost.unit_usd_per_GBps, npus);
  std::vector<double> marginal(dims);
  for (uint32_t d = 0; d < dims; ++d) marginal[d] = cost.MarginalUsdPerGBps(d);

  const Polytope polytope = BuildPolytope(spec, dims);
  // time_under_budget searches P within the budget, and the budget alone bounds every
  // dimension that costs something: where nothing else bounds P, its centre and its cost range
  // are taken within the budget (elsewhere P's, as for the other objectives).
  std::optional<uint32_t> unbounded;
  auto centre = Centre(polytope, &unbounded);
  const bool only_the_budget_bounds =
      !centre && unbounded && spec.objective == OptimizeObjective::kTimeUnderBudget;
  const Polytope searched =
      only_the_budget_bounds ? WithRow(polytope, BudgetRow(marginal, *spec.budget_usd)) : polytope;
  if (only_the_budget_bounds) centre = Centre(searched, nullptr, &marginal);
  if (!centre) return centre.Error();
  const TimeModel model(scenario);
  CuttingPlaneSolver solver(model, polytope, centre.Value(), options);

  OptimizeOutcome outcome;
  outcome.objective = spec.objective;
  std::vector<double> negated = marginal;
  for (double& m : negated) m = -m;
  outcome.min_cost_usd = Checked(searched.Minimise(marginal), "of the cheapest network").value;
  outcome.max_cost_usd = -Checked(searched.Minimise(negated), "of the dearest network").value;

  auto allocation = [&](const std::vector<double>& b) {
    return Allocation{b, model.TimeNs(b), cost.CostUsd(b)};
  };
  auto keep = [&](const ConvexSolution& s) {
    outcome.best = allocation(s.bandwidth_GBps);
    outcome.lower_bound_ns = s.lower_bound_ns;
    outcome.gap = s.gap;
    outcome.converged = s.converged;
    outcome.status = s.status;
    outcome.solver_failure = s.lp_failure;
    outcome.iterations = s.iterations;
  };
  // A failed LP ends the run: the outcome carries GLPK's reason and nothing else is meaningful.
  auto lp_failed = [&](const ConvexSolution& s) {
    outcome.status = SolveStatus::kLpFailed;
    outcome.solver_failure = s.lp_failure;
    outcome.converged = false;
    outcome.evaluations = solver.Evaluations();
    return outcome;
  };
  // The fastest allocation within `budget` (none: no budget).
  auto solve_under = [&](std::optional<double> budget) -> Expected<ConvexSolution> {
    if (!budget) return solver.Minimise(std::nullopt, centre.Value(), spec.tolerance);
    const LinearRow row = BudgetRow(marginal, *budget);
    auto start = Centre(WithRow(polytope, row));
    if (!start) return start.Error();
    return solver.Minimise(row, start.Value(), spec.tolerance);
  };

  if (spec.objective == OptimizeObjective::kTime) {
    auto solution = solve_under(std::nullopt);
    if (!solution) return solution.Error();
    if (solution.Value().status == SolveStatus::kLpFailed) return lp_failed(solution.Value());
    keep(solution.Value());
  } else if (spec.objective == OptimizeObjective::kTimeUnderBudget) {
    auto solution = solve_under(spec.budget_usd);
    if (!solution) return solution.Error();
    if (solution.Value().status == SolveStatus::kLpFailed) return lp_failed(solution.Value());
    keep(solution.Value());
    outcome.budget_usd = spec.budget_usd;
  } else {
    // Beyond the cost of the fastest allocation more budget buys nothing, so the sweep ends
    // there rather than at the dearest allocation.
    auto fastest_solution = solve_under(std::nullopt);
    if (!fastest_solution) return fastest_solution.Error();
    const ConvexSolution& fastest = fastest_solution.Value();
    if (fastest.status == SolveStatus::kLpFailed) return lp_failed(fastest);
    // A hair above the cheapest cost, so that the first budget row is not a knife edge on which
    // the LP's rounding could call the set infeasible.
    double low = outcome.min_cost_usd * (1.0 + 1e-9);
    const double high = std::max(low, std::min(outcome.max_cost_usd,
                                               cost.CostUsd(fastest.bandwidth_GBps)));
    // A budget solve that fails is reported, never dereferenced: the first failure is kept and
    // returned once the sweep ends.
    std::optional<UserError> failure;
    std::optional<ConvexSolution> lp_failure;
    auto frontier_point = [&](double budget) {
      // After a failure the rest of the sweep is moot (and GLPK may have been reset).
      if (failure || lp_failure) return FrontierPoint{budget, Allocation{}, 0.0, 0.0, 0};
      auto solution = solve_under(budget);
      if (!solution) {
        if (!failure) failure = solution.Error();
        return FrontierPoint{budget, Allocation{}, 0.0, 0.0, 0};
      }
      const ConvexSolution& s = solution.Value();
      if (s.status == SolveStatus::kLpFailed && !lp_failure) lp_failure = s;
      return FrontierPoint{budget, allocation(s.bandwidth_GBps), s.lower_bound_ns, s.gap,
                           s.iterations};
    };
    const uint32_t points = high > low * (1.0 + 1e-12) ? spec.frontier_points : 1;
    for (uint32_t i = 0; i < points; ++i) {
      const double budget = points == 1 ? high : low + (high - low) * i / (points - 1);
      outcome.frontier.push_back(frontier_point(budget));
      if (i == 0 && points > 1 && lp_failure) {
        // Even a hair above the cheapest cost can be a sliver the LP's tolerances call empty
        // (LIBRA's MSFT-1T 3-D inputs at a fixed total): start the sweep a little higher.
        lp_failure.reset();
        low = std::min(high, outcome.min_cost_usd * (1.0 + 1e-6));
        outcome.frontier.back() = frontier_point(low);
      }
    }
    auto product = [](const FrontierPoint& p) {
      return p.allocation.time_ns * p.allocation.cost_usd;
    };
    size_t best = 0;
    for (size_t i = 1; i < outcome.frontier.size(); ++i) {
      if (product(outcome.frontier[i]) < product(outcome.frontier[best])) best = i;
    }
    if (failure) return *failure;
    if (lp_failure) return lp_failed(*lp_failure);
    FrontierPoint chosen = outcome.frontier[best];
    if (outcome.frontier.size() > 1) {
      // Golden-section search for the least time x cost over budgets around the best sweep point.
      double a = outcome.frontier[best == 0 ? 0 : best - 1].budget_usd;
      double b = outcome.frontier[std::min(best + 1, outcome.frontier.size() - 1)].budget_usd;
      const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
      double x1 = b - ratio * (b - a);
      double x2 = a + ratio * (b - a);
      FrontierPoint p1 = frontier_point(x1);
      FrontierPoint p2 = frontier_point(x2);
      for (int step = 0; step < kBudgetSearchSteps; ++step) {
        if (product(p1) <= product(p2)) {
          b = x2, x2 = x1, p2 = p1;
          x1 = b - ratio * (b - a);
          p1 = frontier_point(x1);
        } else {
          a = x1, x1 = x2, p1 = p2;
          x2 = a + ratio * (b - a);
          p2 = frontier_point(x2);
        }
      }
      if (failure) return *failure;
      if (lp_failure) return lp_failed(*lp_failure);
      for (const FrontierPoint* p : {&p1, &p2}) {
        if (product(*p) < product(chosen)) chosen = *p;
      }
    }
    outcome.best = chosen.allocation;
    outcome.lower_bound_ns = chosen.lower_bound_ns;
    outcome.gap = chosen.gap;
    outcome.converged = chosen.gap <= spec.tolerance;
    outcome.status = outcome.converged ? SolveStatus::kConverged : SolveStatus::kIterationLimit;
    outcome.iterations = chosen.iterations;
    outcome.budget_usd = chosen.budget_usd;
    if (chosen.budget_usd != outcome.frontier[best].budget_usd) {
      outcome.frontier.push_back(chosen);
      std::sort(outcome.frontier.begin(), outcome.frontier.end(),
                [](const FrontierPoint& x, const FrontierPoint& y) {
                  return x.budget_usd < y.budget_usd;
                });
    }
  }
  if (auto split = EqualSplit(spec, dims)) {
    outcome.equal_split = allocation(*split);
    Polytope check = polytope;
    if (outcome.budget_usd && spec.objective == OptimizeObjective::kTimeUnderBudget) {
      check.Add(BudgetRow(marginal, *outcome.budget_usd));
    }
    outcome.equal_split_feasible = check.Contains(*split, kContainsTolerance);
  }
  outcome.evaluations = solver.Evaluations();
  return outcome;
}

}  // namespace hfsim
