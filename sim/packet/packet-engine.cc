// Assembles one packet-level simulation: the fabric in ns-3 and the transport on it (RDMA on the
// lean L2 fabric, or ns-3's TCP on the IP fabric), the collective executor on the transport; runs
// it and turns what it counted into a Report.
#include "sim/packet/packet-engine.h"

#include <ns3/object-factory.h>
#include <ns3/simulator.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <tuple>

#include "sim/analytical/collective-pricing.h"
#include "sim/analytical/graph-pricing.h"
#include "sim/analytical/ina-ps-pricing.h"
#include "sim/messages/collective-executor.h"
#include "sim/messages/gossip-driver.h"
#include "sim/messages/graph-driver.h"
#include "sim/messages/graph-report.h"
#include "sim/messages/message-mux.h"
#include "sim/messages/ps-driver.h"
#include "sim/packet/event-scheduler.h"
#include "sim/packet/ina-allreduce.h"
#include "sim/packet/ina-ps.h"
#include "sim/packet/ip-fabric.h"
#include "sim/packet/link-reports.h"
#include "sim/packet/ns3-clock.h"
#include "sim/packet/packet-fabric.h"
#include "sim/packet/rdma-transport.h"
#include "sim/packet/tcp-transport.h"
#include "sim/report/dimension-reports.h"
#include "sim/report/ps-planned-report.h"
#include "sim/report/timeline.h"
#include "sim/runs/convergence-run.h"
#include "sim/runs/gossip-run.h"
#include "sim/runs/peak-memory.h"
#include "sim/scenario/in-network-check.h"
#include "sim/scenario/scenario-graph.h"
#include "sim/version.h"
#include "topologies/fabric-graph.h"

namespace hfsim {

namespace {

// ns-3's time resolution is process-wide and may be set once, before any Time exists.
// Picoseconds: a 4 KiB packet at 100 GB/s takes 40.96 ns, which whole nanoseconds would round
// by 2% on every packet, an error that adds up along a flow; picoseconds hold it exactly.
void UsePicoseconds() {
  static const bool done = [] {
    ns3::Time::SetResolution(ns3::Time::PS);
    return true;
  }();
  (void)done;
}

// Events in a std::priority_queue (ordered by time, then insertion: deterministic), set by
// UseEventScheduler (event-scheduler.h). Collective traffic keeps tens of thousands of events
// pending. Measured (scripts/bench-packet and an 8 MiB 256-NPU all-reduce): the default map
// scheduler 0.96 M events/s on the latter (its tree rebalancing ~15% of the run), ns-3's
// HeapScheduler 1.10 M, the priority queue 1.54 M; on the 1024-NPU benchmark all of them fall to
// about 0.6-0.7 M events/s (cache misses across ns-3's objects, not the scheduler, dominate
// there). The calendar scheduler degrades when events cluster within a microsecond, as
// collective traffic does.

// A fabric and the transport on it, with what both counted.
class Network {
 public:
  virtual ~Network() = default;
  virtual MessageTransport& Transport() = 0;
  virtual const TransportCounters& Counters() const = 0;
  virtual const std::vector<LinkCounters>& Links() const = 0;
};

template <typename Fabric, typename TransportType>
class NetworkOf final : public Network {
 public:
  NetworkOf(const FabricGraph& graph, EventClock& clock, const Scenario& scenario)
      : m_fabric(graph, scenario.packet, scenario.seed),
        m_transport(m_fabric, clock, scenario.packet) {}
  MessageTransport& Transport() override { return m_transport; }
  const TransportCounters& Counters() const override { return m_transport.Counters(); }
  const std::vector<LinkCounters>& Links() const override { return m_fabric.Counters(); }

 private:
  Fabric m_fabric;
  TransportType m_transport;
};

std::unique_ptr<Network> MakeNetwork(const FabricGraph& graph, EventClock& clock,
                                     const Scenario& scenario) {
  switch (scenario.packet.transport) {
    case TransportKind::kRdma:
      return std::make_unique<NetworkOf<PacketFabric, RdmaTransport>>(graph, clock, scenario);
    case TransportKind::kTcp:
      return std::make_unique<NetworkOf<IpFabric, TcpTransport>>(graph, clock, scenario);
  }
  throw std::logic_error("MakeNetwork: unknown transport");
}

struct Simulation {
  Simulation(const Scenario& scenario, bool verify)
      : topology(scenario.dimensions),
        graph(topology),
        network(MakeNetwork(graph, clock, scenario)),
        mux(network->Transport()),
        executor(topology, scenario.communication, clock, mux.Channel(0), Options(verify)) {}

  static ExecutorOptions Options(bool verify) {
    ExecutorOptions options;
    options.verify = verify;
    return options;
  }

  Topology topology;
  FabricGraph graph;
  Ns3Clock clock;
  std::unique_ptr<Network> network;
  MessageMux mux;  // channel 0: the executor's collectives; 1: the graph's sends
  CollectiveExecutor executor;
  uint64_t point_to_point_bytes_planned = 0;
  uint64_t point_to_point_bytes_delivered = 0;
  /// A graph given in the scenario: its ranks differ, so the job's traffic is each program's
  /// times the ranks that run it, not one rank's times the NPUs.
  std::optional<double> job_traffic_bytes;
};

void FillPacketReport(Simulation& sim, Report& report, uint64_t events, double simulated_ns,
                      double wall_seconds) {
  PacketReport packet;
  packet.events = events;
  packet.simulated_ns = simulated_ns;
  packet.wall_seconds = wall_seconds;
  packet.transport = sim.network->Counters();
  const CollectiveStats totals = sim.executor.Totals();
  packet.bytes_scheduled = totals.bytes_scheduled + sim.point_to_point_bytes_planned;
  packet.bytes_delivered = totals.bytes_delivered + sim.point_to_point_bytes_delivered;
  packet.reductions_scheduled = totals.reductions_scheduled;
  packet.reductions_performed = totals.reductions_performed;
  packet.duplicate_deliveries = sim.executor.DuplicateDeliveries();
  packet.protocol_errors = sim.executor.ErrorCount();
  packet.message_delivery = sim.executor.DeliverySummary();
  FillLinkReports(sim.graph, sim.network->Links(), simulated_ns, packet);
  report.packet = std::move(packet);
}

// The parts of a packet report every point-to-point workload (parameter server, gossip) fills
// alike: events, times, transport and link counters, peak memory. The caller adds conservation.
PacketReport PointToPointPacketReport(const FabricGraph& graph, const Network& network,
                                      double end_ns, double wall_seconds) {
  PacketReport packet;
  packet.events = ns3::Simulator::GetEventCount();
  packet.simulated_ns = end_ns;
  packet.wall_seconds = wall_seconds;
  packet.transport = network.Counters();
  FillLinkReports(graph, network.Links(), end_ns, packet);
  packet.peak_memory_bytes = PeakResidentBytes();
  return packet;
}

// A parameter_server workload (sim/messages/ps-driver.h): the same fabric and transport, with the
// PS driver in place of the collective executor. Fills everything but the dimension busy times.
void RunParameterServer(const Scenario& scenario, Report& report) {
  const ParameterServerWorkload& workload = scenario.parameter_server;
  const Topology topology(scenario.dimensions);
  const FabricGraph graph(topology);
  Ns3Clock clock;
  const std::unique_ptr<Network> network = MakeNetwork(graph, clock, scenario);
  report.npus = topology.NpuCount();
  ParameterServerReport ps;
  ps.iterations = workload.iterations;
  std::vector<PsIterationTraffic> traffic;
  std::vector<double> dimension_bytes(topology.DimensionCount(), 0.0);
  for (uint32_t i = 0; i < workload.iterations; ++i) {
    traffic.push_back(BuildIterationTraffic(workload, scenario.seed, i));
    AddPlannedIteration(workload, traffic.back(), ps);
    const std::vector<double> bytes = PsDimensionBytes(topology, workload, traffic.back());
    for (uint32_t d = 0; d < bytes.size(); ++d) dimension_bytes[d] += bytes[d];
  }
  PsDriver driver(clock, network->Transport(), workload, std::move(traffic),
                  scenario.communication.reduction_Bpns);
  driver.Start();
  const double wall_seconds = RunSimulatorTimed();
  driver.CheckComplete();
  driver.FillReport(ps);
  FindBusiestServer(ps);
  const double end_ns = driver.IterationEndNs().back();
  report.iteration.total_ns = end_ns / workload.iterations;
  report.iteration.step_compute_ns = workload.worker_compute_ns;
  report.communication_ns = report.iteration.total_ns - workload.worker_compute_ns;

  PacketReport packet = PointToPointPacketReport(graph, *network, end_ns, wall_seconds);
  // Conservation on the fabric: bytes the plan puts on it against bytes delivered; a
  // "reduction" is one push aggregated at its shard.
  packet.bytes_scheduled = ps.bytes_pushed + ps.bytes_pulled - ps.local_bytes;
  packet.bytes_delivered = driver.NetworkBytesDelivered();
  packet.reductions_scheduled = driver.PushesPlanned();
  packet.reductions_performed = driver.PushesAggregated();
  packet.protocol_errors = driver.ErrorCount();
  packet.message_delivery = driver.DeliverySummary();
  report.packet = std::move(packet);
  report.parameter_server = std::move(ps);
  AddPsDimensionReports(scenario.dimensions, dimension_bytes, report);
}

// A gossip workload (sim/runs/gossip-run.h): the learning runs first, then its exchange messages
// run step by step on the fabric and transport (sim/messages/gossip-driver.h); the report is built
// from the measured step end times exactly as the analytical engine builds it from its priced ones.
void RunGossipPacket(const Scenario& scenario, Report& report) {
  const GossipWorkload& g = scenario.gossip;
  const GossipTrace trace = TrainGossip(scenario);
  const Topology topology(scenario.dimensions);
  const FabricGraph graph(topology);
  Ns3Clock clock;
  const std::unique_ptr<Network> network = MakeNetwork(graph, clock, scenario);
  std::vector<uint32_t> node_npus = g.worker_npus;
  node_npus.push_back(g.server_npu);  // node W: the elastic centre (unused by the other rules)
  GossipDriver driver(clock, network->Transport(), trace, std::move(node_npus), g.spec.steps,
                      g.step_compute_ns);
  driver.Start();
  const double wall_seconds = RunSimulatorTimed();
  // A step that never ended (a link down for good) has no end time to report: the run failed.
  if (!driver.CheckComplete()) {
    throw std::runtime_error("PacketEngine: the gossip exchanges did not finish (" +
                             std::to_string(driver.ErrorCount()) +
                             " protocol errors; the first: " + driver.Errors().front() + ")");
  }
  ReportGossip(scenario, trace, driver.StepEndNs(), report);

  const double end_ns = driver.StepEndNs().back();
  PacketReport packet = PointToPointPacketReport(graph, *network, end_ns, wall_seconds);
  // Conservation: every byte handed to the fabric delivered, and every exchange message (local
  // ones too) merged into its receiver's model exactly once.
  packet.bytes_scheduled = driver.NetworkBytesSent();
  packet.bytes_delivered = driver.NetworkBytesDelivered();
  packet.reductions_scheduled = trace.messages.size();
  packet.reductions_performed = driver.MessagesDelivered();
  packet.protocol_errors = driver.ErrorCount();
  packet.message_delivery = driver.DeliverySummary();
  report.packet = std::move(packet);
}

// Runs the scenario's execution graph (a training job, a lone collective or a graph given in
// the scenario) on the simulation; fills the timeline, the collectives and the sends.
void RunGraph(const Scenario& scenario, Simulation& sim, Report& report, bool want_timeline) {
  // The graph the loader placed; priced for the rank the analytical engine reports.
  const GraphPricing pricing = GraphPricing::Compile(scenario, PlacedGraphOf(scenario));
  const ExecutionGraph& graph = pricing.Graph();
  GraphDriver driver(sim.topology, graph, sim.executor, sim.mux.Channel(1), sim.clock,
                     scenario.communication.endpoint_delay_ns);
  driver.Start();
  ns3::Simulator::Run();
  const std::vector<std::string> problems = driver.CheckComplete();
  if (!problems.empty()) {
    throw std::runtime_error("PacketEngine: the graph did not finish: " + problems.front());
  }
  sim.job_traffic_bytes = FillGraphReport(scenario, pricing, driver, sim.executor, sim.topology,
                                          report, want_timeline);
  sim.point_to_point_bytes_planned = driver.PointToPointBytesPlanned();
  sim.point_to_point_bytes_delivered = driver.PointToPointBytesDelivered();
}

}  // namespace

Report PacketEngine::Run(const Scenario& scenario, const RunOptions& options) const {
  UsePicoseconds();
  Report report;
  report.hfsim_version = kHfsimVersion;
  report.engine = std::string(ToString(EngineKind::kPacket));
  UseEventScheduler(options.progress, options.progress_interval);
  if (auto refusal = InNetworkPacketRefusal(scenario)) {
    throw std::invalid_argument("PacketEngine: " + refusal->ToString());
  }
  if (IsLibraScenario(scenario)) {
    RunLibraPacket(scenario, report);  // sim/packet/ina-ps.h
    ns3::Simulator::Destroy();
    AddConvergence(scenario, report);  // time to accuracy, when asked for
    return report;
  }
  if (RunsInNetworkAllReduce(scenario)) {
    RunInNetworkAllReduce(scenario, report);  // sim/packet/ina-allreduce.h
    ns3::Simulator::Destroy();
    return report;
  }
  if (scenario.workload_kind == WorkloadKind::kParameterServer ||
      scenario.workload_kind == WorkloadKind::kGossip) {
    const bool gossip = scenario.workload_kind == WorkloadKind::kGossip;
    (gossip ? RunGossipPacket : RunParameterServer)(scenario, report);
    ns3::Simulator::Destroy();
    TakeBusiestPacketLinks(report);
    AddConvergence(scenario, report);  // time to accuracy, when asked for
    return report;
  }
  std::optional<double> job_traffic_bytes;
  {
    Simulation sim(scenario, options.verify_schedules);
    report.npus = sim.topology.NpuCount();
    const auto wall_start = std::chrono::steady_clock::now();
    RunGraph(scenario, sim, report, options.timeline);
    const double wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    sim.executor.CheckComplete();
    // The workload ends when its last NPU finishes; idle retransmission timers that fire later
    // are not part of it.
    FillPacketReport(sim, report, ns3::Simulator::GetEventCount(), report.iteration.total_ns,
                     wall_seconds);
    report.packet->peak_memory_bytes = PeakResidentBytes();
    job_traffic_bytes = sim.job_traffic_bytes;
  }
  ns3::Simulator::Destroy();

  AddDimensionReports(scenario.dimensions, report);
  if (job_traffic_bytes) report.total_traffic_bytes = *job_traffic_bytes;
  // Busy time measured on the wire: each dimension's busiest link's bytes at its rate.
  TakeBusiestPacketLinks(report);
  return report;
}

}  // namespace hfsim
