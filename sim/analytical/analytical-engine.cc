#include "sim/analytical/analytical-engine.h"

#include <stdexcept>

#include "sim/analytical/gossip-pricing.h"
#include "sim/analytical/graph-pricing.h"
#include "sim/analytical/in-network-plan.h"
#include "sim/analytical/ina-ps-pricing.h"
#include "sim/analytical/ps-pricing.h"
#include "sim/report/dimension-reports.h"
#include "sim/runs/convergence-run.h"
#include "sim/scenario/scenario-graph.h"
#include "sim/version.h"

namespace hfsim {

Report AnalyticalEngine::Run(const Scenario& scenario, const RunOptions& options) const {
  Report report;
  report.hfsim_version = kHfsimVersion;
  report.engine = std::string(ToString(EngineKind::kAnalytical));
  report.npus = 1;
  for (const Dimension& dim : scenario.dimensions) report.npus *= dim.size;
  if (scenario.workload_kind == WorkloadKind::kParameterServer) {
    if (IsLibraScenario(scenario)) {
      RunLibraAnalytical(scenario, report);  // hot keys in the switch, cold ones PS-lite's way
    } else {
      RunParameterServerAnalytical(scenario, report);  // fills its own dimension reports
    }
    AddConvergence(scenario, report);  // time to accuracy, when asked for
    return report;
  }
  if (scenario.workload_kind == WorkloadKind::kGossip) {
    RunGossipAnalytical(scenario, report);  // the learning, and its exchanges priced
    return report;
  }
  // The graph the loader placed, priced at the scenario's bandwidths.
  const GraphPricing graph = GraphPricing::Compile(scenario, PlacedGraphOf(scenario));
  graph.FillReport(report);
  if (options.timeline) report.timeline = graph.BuildTimeline();
  if (scenario.workload_kind == WorkloadKind::kCollective) {
    report.in_network = PlanInNetworkReport(scenario);
  }
  AddDimensionReports(scenario.dimensions, report);
  if (RanksRunDifferentPrograms(scenario)) {
    report.graph = graph.Summary();
    // Ranks differ: the job's traffic is each program's times the ranks that run it.
    report.total_traffic_bytes = graph.JobTrafficBytes();
  }
  return report;
}

}  // namespace hfsim
