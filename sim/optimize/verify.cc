#include "sim/optimize/verify.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/analytical/analytical-engine.h"
#include "sim/report/number-text.h"
#include "sim/scenario/scenario-parser.h"

namespace hfsim {

std::string_view ToString(VerifySource source) {
  switch (source) {
    case VerifySource::kOptimum:
      return "optimum";
    case VerifySource::kFrontier:
      return "frontier";
    case VerifySource::kEqualSplit:
      return "equal_split";
  }
  return "?";
}

uint32_t VerifyPlan::Ranked() const {
  return static_cast<uint32_t>(std::count_if(candidates.begin(), candidates.end(),
                                             [](const VerifyCandidate& c) { return c.rank > 0; }));
}

VerifyPlan PlanVerification(const OptimizeOutcome& outcome, uint32_t k) {
  VerifyPlan plan;
  plan.requested = k;
  auto listed = [&](const std::vector<double>& b) {
    return std::any_of(plan.candidates.begin(), plan.candidates.end(),
                       [&](const VerifyCandidate& c) { return c.allocation.bandwidth_GBps == b; });
  };
  plan.candidates.push_back({1, VerifySource::kOptimum, outcome.best});
  // The frontier is in budget order; the stable sort keeps it for equal objective values.
  std::vector<const FrontierPoint*> frontier;
  for (const FrontierPoint& p : outcome.frontier) frontier.push_back(&p);
  auto objective = [&](const Allocation& a) {
    return outcome.objective == OptimizeObjective::kTimeXCost ? a.time_ns * a.cost_usd : a.time_ns;
  };
  std::stable_sort(frontier.begin(), frontier.end(),
                   [&](const FrontierPoint* x, const FrontierPoint* y) {
                     return objective(x->allocation) < objective(y->allocation);
                   });
  for (const FrontierPoint* p : frontier) {
    if (plan.candidates.size() >= k) break;
    if (listed(p->allocation.bandwidth_GBps)) continue;
    plan.candidates.push_back({static_cast<uint32_t>(plan.candidates.size() + 1),
                               VerifySource::kFrontier, p->allocation});
  }
  if (outcome.equal_split && !listed(outcome.equal_split->bandwidth_GBps)) {
    plan.candidates.push_back({0, VerifySource::kEqualSplit, *outcome.equal_split});
  }
  return plan;
}

Expected<Scenario> ScenarioWithAllocation(const Scenario& scenario,
                                          const std::vector<double>& bandwidth_GBps,
                                          EngineKind engine) {
  Scenario copy = scenario;
  copy.engine = engine;
  for (size_t d = 0; d < copy.dimensions.size(); ++d) {
    const double b = bandwidth_GBps.at(d);
    // The loader's range for topology.dimensions[d].bandwidth_GBps, so that `hfsim run` accepts
    // the same scenario written to a file.
    if (!(b > 0.0 && b <= ScenarioLimits::kMaxBandwidthGBps)) {
      return UserError{fmt::format("topology.dimensions[{}].bandwidth_GBps", d),
                       fmt::format("the allocation gives {} GB/s, which a scenario cannot hold; "
                                   "accepted: above 0 and at most {}",
                                   b, ScenarioLimits::kMaxBandwidthGBps)};
    }
    copy.dimensions[d].bandwidth_Bpns = b;  // GB/s is numerically bytes/ns
  }
  return copy;
}

Expected<std::vector<VerifyRow>> Verify(const Scenario& scenario, const VerifyPlan& plan,
                                        const Engine& engine, EngineKind kind,
                                        const VerifyProgress& progress) {
  std::vector<VerifyRow> rows;
  for (size_t i = 0; i < plan.candidates.size(); ++i) {
    const VerifyCandidate& candidate = plan.candidates[i];
    auto analytical = ScenarioWithAllocation(scenario, candidate.allocation.bandwidth_GBps,
                                             EngineKind::kAnalytical);
    if (!analytical) return analytical.Error();
    auto checked = ScenarioWithAllocation(scenario, candidate.allocation.bandwidth_GBps, kind);
    if (!checked) return checked.Error();
    if (progress) progress(i, plan.candidates.size(), candidate);
    VerifyRow row;
    row.candidate = candidate;
    row.checked_by = kind;
    row.analytical_ns = AnalyticalEngine().Run(analytical.Value()).iteration.total_ns;
    row.simulated_ns = engine.Run(checked.Value()).iteration.total_ns;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string VerifyTable(const VerifyPlan& plan, const std::vector<VerifyRow>& rows,
                        const Scenario& scenario) {
  const uint32_t ranked = plan.Ranked();
  const EngineKind kind = rows.empty() ? EngineKind::kPacket : rows.front().checked_by;
  std::string out = fmt::format("verify: {} allocation{} with the {} engine{}\n", ranked,
                                ranked == 1 ? "" : "s", ToString(kind),
                                rows.size() > ranked ? ", and the equal split for reference" : "");
  if (ranked < plan.requested) {
    out += fmt::format("only {} distinct allocation{} to verify (asked for {})\n", ranked,
                       ranked == 1 ? "" : "s", plan.requested);
  }
  out += "\n";
  out += fmt::format("{:>5}", "rank");
  for (size_t d = 0; d < scenario.dimensions.size(); ++d) {
    out += fmt::format(" {:>10}", fmt::format("B{} GB/s", d));
  }
  out += fmt::format(" {:>16} {:>15} {:>15} {:>8}\n", "cost $", "analytical ms",
                     fmt::format("{} ms", ToString(kind)), "diff %");
  for (const VerifyRow& row : rows) {
    const VerifyCandidate& c = row.candidate;
    out += fmt::format("{:>5}", c.rank > 0 ? fmt::format("{}", c.rank) : std::string("equal"));
    for (double b : c.allocation.bandwidth_GBps) out += fmt::format(" {:>10.4f}", b);
    out += fmt::format(" {:>16.2f} {:>15.6f} {:>15.6f} {:>+8.2f}\n", c.allocation.cost_usd,
                       row.analytical_ns / 1e6, row.simulated_ns / 1e6, row.DifferencePercent());
  }
  return out;
}

std::string VerifyCsv(const std::vector<VerifyRow>& rows, const Scenario& scenario) {
  const EngineKind kind = rows.empty() ? EngineKind::kPacket : rows.front().checked_by;
  std::string out = fmt::format(
      "rank,candidate,cost_usd,analytical_time_ns,{}_time_ns,difference_percent", ToString(kind));
  for (size_t d = 0; d < scenario.dimensions.size(); ++d) out += fmt::format(",B{}_GBps", d);
  out += "\n";
  for (const VerifyRow& row : rows) {
    const VerifyCandidate& c = row.candidate;
    out += fmt::format("{},{},{},{},{},{}", c.rank > 0 ? fmt::format("{}", c.rank) : std::string(),
                       ToString(c.source), NumberText(c.allocation.cost_usd),
                       NumberText(row.analytical_ns), NumberText(row.simulated_ns),
                       NumberText(row.DifferencePercent()));
    for (double b : c.allocation.bandwidth_GBps) (out += ',') += NumberText(b);
    out += "\n";
  }
  return out;
}

}  // namespace hfsim
