#include "sim/flow/flow-engine.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "sim/analytical/graph-pricing.h"
#include "sim/flow/flow-transport.h"
#include "sim/packet/collective-executor.h"
#include "sim/packet/graph-driver.h"
#include "sim/packet/graph-report.h"
#include "sim/packet/message-mux.h"
#include "sim/report/dimension-reports.h"
#include "sim/scenario/scenario-graph.h"
#include "sim/version.h"
#include "topologies/fabric-graph.h"

namespace hfsim {

Report FlowEngine::Run(const Scenario& scenario) const {
  std::optional<Timeline> no_timeline;
  return Run(scenario, no_timeline);
}

Report FlowEngine::Run(const Scenario& scenario, std::optional<Timeline>& timeline) const {
  const bool want_timeline = timeline.has_value();
  timeline.reset();
  if (scenario.workload_kind == WorkloadKind::kParameterServer ||
      scenario.workload_kind == WorkloadKind::kGossip) {
    throw std::invalid_argument(
        "FlowEngine: parameter-server and gossip workloads run on the analytical or packet "
        "engine only");
  }
  Report report;
  report.hfsim_version = kHfsimVersion;
  report.engine = "flow";
  const Topology topology(scenario.dimensions);
  const FabricGraph fabric(topology);
  report.npus = topology.NpuCount();
  FlowClock clock;
  FlowTransport transport(fabric, clock);
  MessageMux mux(transport);  // channel 0: the executor's collectives; 1: the graph's sends
  CollectiveExecutor executor(topology, scenario.communication, clock, mux.Channel(0));
  auto compiled = GraphPricing::Compile(scenario, BuildExecutionGraph(scenario), "workload");
  // The loader refuses every graph that does not compile; a generator's graph always does.
  if (!compiled) throw std::logic_error("FlowEngine: " + compiled.Error().ToString());
  const GraphPricing& pricing = compiled.Value();
  GraphDriver driver(topology, pricing.Graph(), executor, mux.Channel(1), clock,
                     scenario.communication.endpoint_delay_ns);
  driver.Start();
  clock.Run();
  const std::vector<std::string> problems = driver.CheckComplete();
  if (!problems.empty()) {
    throw std::runtime_error("FlowEngine: the graph did not finish: " + problems.front());
  }
  executor.CheckComplete();
  const std::optional<double> job_traffic = FillGraphReport(
      scenario, pricing, driver, executor, topology, report, want_timeline, timeline);
  AddDimensionReports(scenario.dimensions, report);
  if (job_traffic) report.total_traffic_bytes = *job_traffic;
  // Busy time measured on the links: each dimension's busiest link's bytes at its rate.
  const std::vector<double>& bytes = transport.Network().LinkBytes();
  for (LinkId id = 0; id < bytes.size(); ++id) {
    const FabricLink& link = fabric.Link(id);
    DimensionReport& dim = report.dimensions[link.dimension];
    dim.busy_ns = std::max(dim.busy_ns, bytes[id] / link.bandwidth_Bpns);
  }
  return report;
}

}  // namespace hfsim
