#include "sim/flow/flow-engine.h"

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/analytical/graph-pricing.h"
#include "sim/flow/flow-transport.h"
#include "sim/messages/collective-executor.h"
#include "sim/messages/event-loop.h"
#include "sim/messages/graph-driver.h"
#include "sim/messages/graph-report.h"
#include "sim/messages/message-mux.h"
#include "sim/report/dimension-reports.h"
#include "sim/report/link-rows.h"
#include "sim/runs/peak-memory.h"
#include "sim/scenario/scenario-graph.h"
#include "sim/version.h"
#include "topologies/fabric-graph.h"

namespace hfsim {

namespace {

FlowReport FlowRunReport(const FabricGraph& fabric, const FlowTransport& transport, uint64_t events,
                         double end_ns, double wall_seconds) {
  const FlowNetwork& network = transport.Network();
  FlowReport flow;
  flow.events = events;
  flow.rate_solves = network.Solves();
  flow.largest_solve_flows = network.LargestSolve();
  flow.simulated_ns = end_ns;
  flow.wall_seconds = wall_seconds;
  flow.peak_memory_bytes = PeakResidentBytes();
  flow.messages_sent = transport.MessagesSent();
  flow.messages_delivered = transport.MessagesDelivered();
  flow.bytes_sent = transport.BytesSent();
  flow.bytes_delivered = transport.BytesDelivered();
  flow.links.reserve(fabric.LinkCount());
  for (LinkId id = 0; id < fabric.LinkCount(); ++id) {
    FlowLinkReport row = LinkRow<FlowLinkReport>(fabric, id, network.LinkBytes()[id], end_ns);
    row.peak_flows = network.LinkPeakFlows()[id];
    flow.links.push_back(row);
  }
  return flow;
}

}  // namespace

Report FlowEngine::Run(const Scenario& scenario, const RunOptions& options) const {
  if (scenario.workload_kind == WorkloadKind::kParameterServer ||
      scenario.workload_kind == WorkloadKind::kGossip) {
    throw std::invalid_argument(
        "FlowEngine: parameter-server and gossip workloads run on the analytical or packet "
        "engine only");
  }
  Report report;
  report.hfsim_version = kHfsimVersion;
  report.engine = std::string(ToString(EngineKind::kFlow));
  const Topology topology(scenario.dimensions);
  const FabricGraph fabric(topology);
  report.npus = topology.NpuCount();
  EventLoop clock;
  if (options.progress) clock.SetProgress(options.progress, options.progress_interval);
  FlowTransport transport(fabric, clock, scenario.seed);
  MessageMux mux(transport);  // channel 0: the executor's collectives; 1: the graph's sends
  // No per-message timings: the flow report does not use them, and at 12 bytes a message they
  // would be most of the memory of a large run (5e8 messages for 1 MiB on 16,384 NPUs).
  ExecutorOptions executor_options;
  executor_options.record_message_times = false;
  CollectiveExecutor executor(topology, scenario.communication, clock, mux.Channel(0),
                              executor_options);
  // The graph the loader placed; priced for the rank the analytical engine reports.
  const GraphPricing pricing = GraphPricing::Compile(scenario, PlacedGraphOf(scenario));
  GraphDriver driver(topology, pricing.Graph(), executor, mux.Channel(1), clock,
                     scenario.communication.endpoint_delay_ns);
  const auto started = std::chrono::steady_clock::now();
  driver.Start();
  const uint64_t events = clock.Run();
  const double wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const std::vector<std::string> problems = driver.CheckComplete();
  if (!problems.empty()) {
    throw std::runtime_error("FlowEngine: the graph did not finish: " + problems.front());
  }
  executor.CheckComplete();
  const std::optional<double> job_traffic =
      FillGraphReport(scenario, pricing, driver, executor, topology, report, options.timeline);
  AddDimensionReports(scenario.dimensions, report);
  if (job_traffic) report.total_traffic_bytes = *job_traffic;
  report.flow = FlowRunReport(fabric, transport, events, clock.NowNs(), wall_seconds);
  // Busy time measured on the links: each dimension's busiest link's bytes at its rate.
  TakeBusiestLinks(
      report.flow->links,
      [&](const FlowLinkReport& link) {
        return static_cast<double>(link.bytes) / fabric.Link(link.link).bandwidth_Bpns;
      },
      report.dimensions);
  return report;
}

}  // namespace hfsim
