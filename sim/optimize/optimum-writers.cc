#include "sim/optimize/optimum-writers.h"

#include <fmt/format.h>

#include "sim/report/number-text.h"

#include "sim/scenario/scenario-parser.h"

namespace hfsim {

namespace {

std::vector<FrontierPoint> RowsOf(const OptimizeOutcome& outcome) {
  if (!outcome.frontier.empty()) return outcome.frontier;
  return {FrontierPoint{outcome.budget_usd.value_or(outcome.best.cost_usd), outcome.best,
                        outcome.lower_bound_ns, outcome.gap, outcome.iterations}};
}

nlohmann::json AllocationJson(const Allocation& a) {
  return {{"bandwidth_GBps", a.bandwidth_GBps},
          {"time_ns", a.time_ns},
          {"cost_usd", a.cost_usd},
          {"time_x_cost_ns_usd", a.time_ns * a.cost_usd}};
}


}  // namespace

std::string OptimumTable(const OptimizeOutcome& outcome, const Scenario& scenario) {
  std::string out = fmt::format("{}: optimise {}\n\n", scenario.name, ToString(outcome.objective));
  out += fmt::format("{:>4}  {:<15} {:>6} {:>14} {:>16}\n", "dim", "kind", "size", "optimal GB/s",
                     "equal split GB/s");
  for (size_t d = 0; d < scenario.dimensions.size(); ++d) {
    const Dimension& dim = scenario.dimensions[d];
    out += fmt::format("{:>4}  {:<15} {:>6} {:>14.4f} {:>16}\n", d, ToString(dim.kind), dim.size,
                       outcome.best.bandwidth_GBps[d],
                       outcome.equal_split
                           ? fmt::format("{:.4f}", outcome.equal_split->bandwidth_GBps[d])
                           : std::string("-"));
  }
  out += "\n";
  out += fmt::format("{:<28} {:.6f} ms\n", "iteration time", outcome.best.time_ns / 1e6);
  out += fmt::format("{:<28} {:.6f} ms (gap {:.3g}{})\n", "lower bound",
                     outcome.lower_bound_ns / 1e6, outcome.gap,
                     outcome.status == SolveStatus::kIterationLimit
                         ? fmt::format(", {}", ToString(outcome.status))
                         : std::string());
  out += fmt::format("{:<28} {:.2f} $\n", "network cost", outcome.best.cost_usd);
  if (outcome.budget_usd) out += fmt::format("{:<28} {:.2f} $\n", "budget", *outcome.budget_usd);
  if (outcome.objective == OptimizeObjective::kTimeXCost) {
    out += fmt::format("{:<28} {:.6g} ms x $\n", "time x cost",
                       outcome.best.time_ns / 1e6 * outcome.best.cost_usd);
    // The budgets actually swept: from the cheapest feasible allocation to the cost of the
    // fastest one (more budget buys no time), not the whole feasible cost range.
    out += fmt::format("{:<28} {} points, budgets {:.2f} $ to {:.2f} $ (feasible costs {:.2f} $ to "
                       "{:.2f} $)\n",
                       "frontier", outcome.frontier.size(), outcome.frontier.front().budget_usd,
                       outcome.frontier.back().budget_usd, outcome.min_cost_usd,
                       outcome.max_cost_usd);
  }
  if (outcome.equal_split) {
    const Allocation& eq = *outcome.equal_split;
    out += fmt::format("{:<28} {:.6f} ms, {:.2f} ${}\n", "equal split", eq.time_ns / 1e6,
                       eq.cost_usd, outcome.equal_split_feasible ? "" : " (violates constraints)");
    out += fmt::format("{:<28} {:.4f}x\n", "speedup over equal split",
                       eq.time_ns / outcome.best.time_ns);
  }
  return out;
}

nlohmann::json OptimumToJson(const OptimizeOutcome& outcome, const Scenario& scenario) {
  nlohmann::json out;
  out["objective"] = ToString(outcome.objective);
  out["optimum"] = AllocationJson(outcome.best);
  out["lower_bound_ns"] = outcome.lower_bound_ns;
  out["gap"] = outcome.gap;
  out["tolerance"] = scenario.optimize.tolerance;
  out["converged"] = outcome.converged;
  out["iterations"] = outcome.iterations;
  out["budget_usd"] = outcome.budget_usd ? nlohmann::json(*outcome.budget_usd) : nlohmann::json();
  out["feasible_cost_usd"] = {{"min", outcome.min_cost_usd}, {"max", outcome.max_cost_usd}};
  if (outcome.equal_split) {
    nlohmann::json eq = AllocationJson(*outcome.equal_split);
    eq["feasible"] = outcome.equal_split_feasible;
    eq["speedup_of_optimum"] = outcome.equal_split->time_ns / outcome.best.time_ns;
    out["equal_split"] = eq;
  } else {
    out["equal_split"] = nullptr;
  }
  nlohmann::json frontier = nlohmann::json::array();
  for (const FrontierPoint& p : outcome.frontier) {
    nlohmann::json entry = AllocationJson(p.allocation);
    entry["budget_usd"] = p.budget_usd;
    entry["lower_bound_ns"] = p.lower_bound_ns;
    entry["gap"] = p.gap;
    entry["iterations"] = p.iterations;
    frontier.push_back(entry);
  }
  out["frontier"] = frontier;
  out["scenario"] = ScenarioToJson(scenario);
  return out;
}

std::string FrontierCsv(const OptimizeOutcome& outcome, const Scenario& scenario) {
  std::string out = "cost_usd,time_ns,time_x_cost_ns_usd";
  for (size_t d = 0; d < scenario.dimensions.size(); ++d) out += fmt::format(",B{}_GBps", d);
  out += "\n";
  for (const FrontierPoint& p : RowsOf(outcome)) {
    const Allocation& a = p.allocation;
    out += fmt::format("{},{},{}", NumberText(a.cost_usd), NumberText(a.time_ns),
                       NumberText(a.time_ns * a.cost_usd));
    for (double b : a.bandwidth_GBps) (out += ',') += NumberText(b);
    out += "\n";
  }
  return out;
}

}  // namespace hfsim
