// Assembles one packet-level simulation: the fabric in ns-3, the RDMA transport on it, the
// collective executor on the transport; runs it and turns what it counted into a Report.
#include "sim/packet/packet-engine.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include <ns3/simulator.h>

#include "sim/analytical/collective-pricing.h"
#include "sim/packet/collective-executor.h"
#include "sim/packet/ns3-clock.h"
#include "sim/packet/packet-fabric.h"
#include "sim/packet/rdma-transport.h"
#include "sim/version.h"
#include "topologies/fabric-graph.h"

namespace hfsim {

namespace {

// ns-3's time resolution is process-wide and may be set once, before any Time exists.
// Picoseconds: a 4 KiB packet at 100 GB/s takes 40.96 ns, which whole nanoseconds would round
// by 2% on every packet (STYLE.md: round once).
void UsePicoseconds() {
  static const bool done = [] {
    ns3::Time::SetResolution(ns3::Time::PS);
    return true;
  }();
  (void)done;
}

struct Simulation {
  Simulation(const Scenario& scenario, bool verify)
      : topology(scenario.dimensions),
        graph(topology),
        fabric(graph, scenario.packet, scenario.seed),
        transport(fabric, clock, scenario.packet),
        executor(topology, scenario.communication, clock, transport, Options(verify)) {}

  static ExecutorOptions Options(bool verify) {
    ExecutorOptions options;
    options.verify = verify;
    return options;
  }

  Topology topology;
  FabricGraph graph;
  Ns3Clock clock;
  PacketFabric fabric;
  RdmaTransport transport;
  CollectiveExecutor executor;
};

void FillPacketReport(Simulation& sim, Report& report, uint64_t events, double simulated_ns,
                      double wall_seconds) {
  PacketReport packet;
  packet.events = events;
  packet.simulated_ns = simulated_ns;
  packet.wall_seconds = wall_seconds;
  const TransportCounters& t = sim.transport.Counters();
  packet.messages = t.messages;
  packet.data_packets_sent = t.data_packets_sent;
  packet.retransmitted_packets = t.retransmitted_packets;
  packet.acks_sent = t.acks_sent;
  packet.nacks_sent = t.nacks_sent;
  packet.timeouts = t.timeouts;
  packet.cnps_sent = t.cnps_sent;
  packet.rate_cuts = t.rate_cuts;
  packet.out_of_order_dropped = t.out_of_order_dropped;
  packet.duplicates_received = t.duplicates_received;
  const CollectiveStats totals = sim.executor.Totals();
  packet.bytes_scheduled = totals.bytes_scheduled;
  packet.bytes_delivered = totals.bytes_delivered;
  packet.reductions_scheduled = totals.reductions_scheduled;
  packet.reductions_performed = totals.reductions_performed;
  packet.duplicate_deliveries = sim.executor.DuplicateDeliveries();
  packet.protocol_errors = sim.executor.ErrorCount();
  packet.message_delivery = sim.executor.DeliverySummary();
  const auto& counters = sim.fabric.Counters();
  packet.links.reserve(counters.size());
  for (LinkId id = 0; id < counters.size(); ++id) {
    const FabricLink& link = sim.graph.Link(id);
    const LinkCounters& c = counters[id];
    LinkReport entry;
    entry.link = id;
    entry.source = link.source;
    entry.target = link.target;
    entry.dimension = link.dimension;
    entry.packets = c.packets;
    entry.bytes = c.bytes;
    entry.utilisation = simulated_ns > 0 ? c.bytes / (link.bandwidth_Bpns * simulated_ns) : 0.0;
    entry.queue_peak_bytes = c.queue_peak_bytes;
    entry.drops_queue_full = c.drops_queue_full;
    entry.drops_injected = c.drops_injected;
    entry.ecn_marks = c.ecn_marks;
    packet.drops_queue_full += c.drops_queue_full;
    packet.drops_injected += c.drops_injected;
    packet.ecn_marks += c.ecn_marks;
    packet.queue_peak_bytes = std::max(packet.queue_peak_bytes, c.queue_peak_bytes);
    packet.links.push_back(entry);
  }
  report.packet = std::move(packet);
}

}  // namespace

Report PacketEngine::Run(const Scenario& scenario) const {
  if (scenario.workload_kind != WorkloadKind::kCollective) {
    throw std::invalid_argument("the packet engine runs collective workloads so far");
  }
  UsePicoseconds();
  Report report;
  report.hfsim_version = kHfsimVersion;
  report.engine = "packet";
  {
    Simulation sim(scenario, m_verify);
    report.npus = sim.topology.NpuCount();
    const CollectiveWorkload& workload = scenario.collective;
    const CollectiveId id =
        sim.executor.Create(workload.kind, workload.size_bytes, workload.dimensions);
    for (uint64_t npu = 0; npu < report.npus; ++npu) sim.executor.Enter(id, npu, [] {});
    const auto wall_start = std::chrono::steady_clock::now();
    ns3::Simulator::Run();
    const double wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    sim.executor.CheckComplete();
    const CollectiveStats& stats = sim.executor.Stats(id);
    // The workload ends when its last NPU finishes; idle retransmission timers that fire later
    // are not part of it.
    const double simulated_ns = stats.last_done_ns;
    report.iteration.total_ns = stats.last_done_ns;

    // The per-collective and per-dimension views keep the analytical report's shape: traffic
    // per NPU from the schedules, busy time measured on the wire.
    const CollectivePricer pricer(scenario.dimensions, scenario.communication);
    const CollectivePrice planned = pricer.Price(workload.kind, workload.size_bytes, workload.dimensions);
    CollectiveReport entry;
    entry.phase = "collective";
    entry.group = "all";
    entry.kind = workload.kind;
    entry.dimensions = workload.dimensions;
    entry.size_bytes = workload.size_bytes;
    entry.occurrences = 1;
    entry.time_ns = stats.last_done_ns;
    entry.dimension_traffic_bytes = planned.dimension_traffic_bytes;
    entry.dimension_busy_ns.assign(scenario.dimensions.size(), 0.0);
    report.collectives.push_back(entry);
    report.communication_ns = entry.time_ns;
    FillPacketReport(sim, report, ns3::Simulator::GetEventCount(), simulated_ns, wall_seconds);
  }
  ns3::Simulator::Destroy();

  const double total_ns = report.iteration.total_ns;
  for (uint32_t d = 0; d < scenario.dimensions.size(); ++d) {
    const Dimension& dim = scenario.dimensions[d];
    DimensionReport entry;
    entry.index = d;
    entry.kind = std::string(ToString(dim.kind));
    entry.size = dim.size;
    entry.bandwidth_GBps = dim.bandwidth_Bpns;
    entry.latency_ns = dim.latency_ns;
    entry.traffic_bytes_per_npu = report.collectives[0].dimension_traffic_bytes[d];
    // Busy time measured on the wire: the dimension's busiest link's bytes at its rate.
    for (const LinkReport& link : report.packet->links) {
      if (link.dimension != d) continue;
      entry.busy_ns = std::max(entry.busy_ns, link.utilisation * total_ns);
    }
    report.collectives[0].dimension_busy_ns[d] = entry.busy_ns;
    entry.utilisation =
        total_ns > 0.0 ? entry.traffic_bytes_per_npu / (dim.bandwidth_Bpns * total_ns) : 0.0;
    report.total_traffic_bytes += entry.traffic_bytes_per_npu * static_cast<double>(report.npus);
    report.dimensions.push_back(std::move(entry));
  }
  return report;
}

}  // namespace hfsim
