#include "sim/packet/ina-ps.h"

#include <ns3/simulator.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "models/aggregation/aggregation-packet.h"
#include "models/aggregation/aggregation-worker.h"
#include "models/aggregation/switch-aggregator.h"
#include "sim/analytical/ina-ps-pricing.h"
#include "sim/messages/ps-driver.h"
#include "sim/packet/ina-allreduce.h"
#include "sim/packet/link-reports.h"
#include "sim/packet/ns3-clock.h"
#include "sim/packet/packet-fabric.h"
#include "sim/packet/rdma-transport.h"
#include "sim/report/ps-planned-report.h"
#include "sim/runs/peak-memory.h"
#include "topologies/fabric-graph.h"

namespace hfsim {

namespace {

double NowNs() { return static_cast<double>(ns3::Simulator::Now().GetPicoSeconds()) * 1e-3; }

// The hot part: workers, the switch and the shards' answer, on the fabric's frames.
class HotKeyAggregation {
 public:
  HotKeyAggregation(const Scenario& scenario, const FabricGraph& graph, PacketFabric& fabric,
                    uint64_t hot_values)
      : m_workload(scenario.parameter_server),
        m_graph(graph),
        m_fabric(fabric),
        m_spec(StreamSpec(*scenario.aggregation)),
        m_aggregator(m_spec),
        m_n(graph.GetTopology().Dim(0).size),
        m_values(hot_values * scenario.parameter_server.iterations) {
    AggregationWorkerOptions options;
    options.retransmit_timeout_ns = scenario.packet.retransmit_timeout_ns;
    const uint32_t workers = m_workload.Workers();
    m_tensors.resize(workers);
    m_timer_armed.assign(workers, false);
    m_done_ns.assign(workers, -1.0);
    for (uint32_t w = 0; w < workers; ++w) {
      m_tensors[w] = DrawAggregationTensor(scenario.seed, m_workload.worker_npus[w], m_values,
                                           m_spec.values_per_packet);
      m_workers.push_back(std::make_unique<AggregationWorker>(m_spec, w, m_tensors[w], options));
    }
    const uint64_t k = m_spec.values_per_packet;
    m_block_applied.assign((m_values + k - 1) / k, 0);
    m_fabric.SetFrameReceive(
        [this](uint32_t vertex, std::vector<uint8_t> frame) { OnFrame(vertex, frame); });
  }

  void Start(double at_ns) {
    ns3::Simulator::Schedule(CheckedDelayPs(at_ns * 1e3), [this] {
      for (uint32_t w = 0; w < m_workers.size(); ++w) {
        Send(Up(w), m_workers[w]->Start(NowNs()));
        if (m_workers[w]->Done()) m_done_ns[w] = NowNs();
        ArmTimer(w);
      }
    });
  }

  bool AllDone() const {
    return std::all_of(m_done_ns.begin(), m_done_ns.end(), [](double t) { return t >= 0.0; });
  }
  double EndNs() const { return *std::max_element(m_done_ns.begin(), m_done_ns.end()); }

  InNetworkMeasured Measure() const {
    InNetworkMeasured m;
    m.frames_rejected = m_frames_rejected;
    for (const auto& worker : m_workers) {
      const WorkerCounters& c = worker->Counters();
      m.updates_sent += c.packets_sent;
      m.retransmissions += c.retransmissions;
      m.results_accepted += c.results_accepted;
      m.stale_results += c.stale_results;
    }
    const SwitchCounters& c = m_aggregator.Counters();
    m.updates_aggregated = c.updates_aggregated;
    m.slots_completed = c.slots_completed;
    m.duplicates_dropped = c.duplicates_dropped;
    m.results_resent = c.results_resent;
    m.frames_rejected += c.rejected + c.cold_forwarded;  // every streamed key is hot
    const uint64_t packets = ComputeAggregationTraffic(m_spec, m_values).packets_per_worker;
    m.slots_expected = packets;
    bool once = AllDone() && m_wrong_shard == 0;
    for (const auto& worker : m_workers)
      once = once && worker->Counters().results_accepted == packets;
    // Every block reached its owning shard and was applied there (priming rounds carry none).
    once = once && m_blocks_applied == m_block_applied.size();
    m.exactly_once = once && m.slots_completed == m.slots_expected &&
                     m.updates_aggregated == m.slots_expected * m_workers.size();
    std::vector<const std::vector<float>*> tensors;
    std::vector<const AggregationWorker*> workers;
    for (uint32_t w = 0; w < m_workers.size(); ++w) {
      tensors.push_back(&m_tensors[w]);
      workers.push_back(m_workers[w].get());
    }
    m.sum_mismatches = AllDone() ? CountGroupSumMismatches(m_spec, tensors, workers) : 0;
    m.exact_sums = AllDone() && m.sum_mismatches == 0;
    return m;  // frames_lost: the caller's (frames and transport packets share link counters)
  }

 private:
  // The switch of the packet engine sees the whole stream of iterations as hot (header comment).
  static AggregationSwitchSpec StreamSpec(AggregationSwitchSpec spec) {
    spec.hot_key_capacity_keys = kAllKeysHot;
    return spec;
  }

  LinkId Up(uint32_t worker) const {
    const uint64_t npu = m_workload.worker_npus[worker];
    return m_graph.NpuLinkId(npu, 0, static_cast<uint32_t>(npu));
  }
  LinkId Down(uint64_t npu) const {
    return m_graph.GroupLinkId(0, 0, m_n + static_cast<uint32_t>(npu));
  }
  LinkId ServerUp(uint32_t shard) const {
    const uint64_t npu = m_workload.server_npus[shard];
    return m_graph.NpuLinkId(npu, 0, static_cast<uint32_t>(npu));
  }

  void Send(LinkId link, const std::vector<AggregationPacket>& packets) {
    for (const AggregationPacket& p : packets) Send(link, p);
  }
  void Send(LinkId link, const AggregationPacket& packet) {
    m_fabric.SendFrame(link, SerializeAggregationPacket(packet));
  }

  void OnFrame(uint32_t vertex, const std::vector<uint8_t>& frame) {
    std::string error;
    const auto packet = ParseAggregationPacket(frame, m_spec.values_per_packet, &error);
    if (!packet) {
      ++m_frames_rejected;
      return;
    }
    if (m_graph.IsSwitch(vertex)) {
      AtSwitch(*packet);
      return;
    }
    if (packet->destination.kind == EndpointKind::kServer) {
      AtServer(packet->destination.index, *packet);
    } else if (packet->destination.kind == EndpointKind::kWorker &&
               packet->destination.index < m_workers.size()) {
      AtWorker(packet->destination.index, *packet);
    } else {
      ++m_frames_rejected;
    }
  }

  // The pipeline for updates; plain forwarding (with the multicast of a shard's result) for
  // what the shards send back.
  void AtSwitch(const AggregationPacket& packet) {
    if (packet.header.type == AggregationMessage::kUpdate) {
      for (const AggregationPacket& out : m_aggregator.Receive(packet)) {
        if (out.destination.kind != EndpointKind::kServer ||
            out.destination.index >= m_workload.Shards()) {
          ++m_frames_rejected;
          continue;
        }
        Send(Down(m_workload.server_npus[out.destination.index]), out);
      }
      return;
    }
    if (packet.source.kind != EndpointKind::kServer) {
      ++m_frames_rejected;
      return;
    }
    if (packet.destination == Endpoint::Switch() && packet.header.worker_id == kAllWorkers) {
      for (uint32_t w = 0; w < m_workers.size(); ++w) {
        AggregationPacket copy = packet;
        copy.source = Endpoint::Switch();
        copy.destination = Endpoint::Worker(w);
        copy.header.worker_id = static_cast<uint8_t>(w);
        Send(Down(m_workload.worker_npus[w]), copy);
      }
    } else if (packet.destination.kind == EndpointKind::kWorker &&
               packet.destination.index < m_workers.size()) {
      Send(Down(m_workload.worker_npus[packet.destination.index]), packet);
    } else {
      ++m_frames_rejected;
    }
  }

  // A shard takes each completed slot once (it holds the parameters: here it counts the block
  // and checks it owns it) and sends the result back once for the switch to multicast; a
  // forwarded duplicate (worker id w) is answered to w alone.
  void AtServer(uint32_t shard, const AggregationPacket& packet) {
    const AggregationHeader& h = packet.header;
    if (h.type != AggregationMessage::kResult) {
      ++m_frames_rejected;
      return;
    }
    AggregationPacket answer = packet;
    answer.source = Endpoint::Server(shard);
    if (m_spec.OwnerShard(h.key_offset) != shard) ++m_wrong_shard;
    // The shard applies a block's sum once, from whichever copy comes first: the completed slot,
    // or (when that was lost on its way) a duplicate the switch answered for one worker.
    if (h.num_values > 0) {
      uint8_t& applied = m_block_applied.at(h.key_offset / m_spec.values_per_packet);
      if (!applied) ++m_blocks_applied;
      applied = 1;
    }
    if (h.worker_id == kAllWorkers) {
      answer.destination = Endpoint::Switch();
    } else {
      answer.destination = Endpoint::Worker(h.worker_id);
    }
    Send(ServerUp(shard), answer);
  }

  void AtWorker(uint32_t w, const AggregationPacket& packet) {
    AggregationWorker& worker = *m_workers[w];
    Send(Up(w), worker.OnPacket(packet, NowNs()));
    if (worker.Done() && m_done_ns[w] < 0.0) m_done_ns[w] = NowNs();
    ArmTimer(w);
  }

  // As in ina-allreduce.cc: one timer per worker at its earliest deadline.
  void ArmTimer(uint32_t w) {
    if (m_timer_armed[w]) return;
    const std::optional<double> next = m_workers[w]->NextTimeoutNs();
    if (!next) return;
    const double delay_ps = std::max(0.0, std::ceil((*next - NowNs()) * 1e3));
    m_timer_armed[w] = true;
    ns3::Simulator::Schedule(CheckedDelayPs(delay_ps), [this, w] {
      m_timer_armed[w] = false;
      Send(Up(w), m_workers[w]->OnTimeout(NowNs()));
      ArmTimer(w);
    });
  }

  const ParameterServerWorkload& m_workload;
  const FabricGraph& m_graph;
  PacketFabric& m_fabric;
  AggregationSwitchSpec m_spec;
  SwitchAggregator m_aggregator;
  uint32_t m_n;
  uint64_t m_values;
  std::vector<std::vector<float>> m_tensors;
  std::vector<std::unique_ptr<AggregationWorker>> m_workers;
  std::vector<bool> m_timer_armed;
  std::vector<double> m_done_ns;
  std::vector<uint8_t> m_block_applied;  ///< by block of the stream: its shard applied it
  uint64_t m_blocks_applied = 0;
  uint64_t m_wrong_shard = 0;
  uint64_t m_frames_rejected = 0;
};

}  // namespace

void RunLibraPacket(const Scenario& scenario, Report& report) {
  if (!IsLibraScenario(scenario) || scenario.packet.transport != TransportKind::kRdma) {
    throw std::invalid_argument("RunLibraPacket: needs hot-key aggregation and transport rdma");
  }
  // The plan, hot/cold split and closed-form bounds: the analytical pricing's (one definition).
  InNetworkReport ina = PlanLibraInNetwork(scenario);

  const ParameterServerWorkload& workload = scenario.parameter_server;
  const Topology topology(scenario.dimensions);
  const FabricGraph graph(topology);
  Ns3Clock clock;
  PacketFabric fabric(graph, scenario.packet, scenario.seed);
  RdmaTransport transport(fabric, clock, scenario.packet);
  report.npus = topology.NpuCount();

  const HotKeySplit split = SplitHotKeys(workload, *scenario.aggregation);
  ParameterServerReport ps;
  ps.iterations = workload.iterations;
  std::vector<PsIterationTraffic> traffic;
  std::vector<double> dimension_bytes(topology.DimensionCount(), 0.0);
  for (uint32_t i = 0; i < workload.iterations; ++i) {
    traffic.push_back(BuildIterationTraffic(workload, scenario.seed, i, split.hot_keys));
    AddPlannedIteration(workload, traffic.back(), ps);
    const std::vector<double> bytes = PsDimensionBytes(topology, workload, traffic.back());
    for (uint32_t d = 0; d < bytes.size(); ++d) dimension_bytes[d] += bytes[d];
    dimension_bytes[0] += static_cast<double>(workload.Workers() * ina.wire_bytes_per_worker +
                                              ina.blocks * ina.frame_bytes);
  }
  PsDriver driver(clock, transport, workload, std::move(traffic),
                  scenario.communication.reduction_Bpns);
  HotKeyAggregation hot(scenario, graph, fabric, split.hot_values);
  driver.Start();
  hot.Start(workload.worker_compute_ns);
  const double wall_seconds = RunSimulatorTimed();
  driver.CheckComplete();
  driver.FillReport(ps);
  FindBusiestServer(ps);
  const double cold_end = driver.IterationEndNs().empty() ? 0.0 : driver.IterationEndNs().back();
  const double hot_end = hot.AllDone() ? hot.EndNs() : NowNs();
  const double end_ns = std::max(cold_end, hot_end);
  report.iteration.total_ns = end_ns / workload.iterations;
  report.iteration.step_compute_ns = workload.worker_compute_ns;
  report.communication_ns = report.iteration.total_ns - workload.worker_compute_ns;

  InNetworkMeasured measured = hot.Measure();
  PacketReport packet;
  packet.events = ns3::Simulator::GetEventCount();
  packet.simulated_ns = end_ns;
  packet.wall_seconds = wall_seconds;
  packet.transport = transport.Counters();
  // Conservation of the cold part as PS-lite's (sim/packet/packet-engine.cc); the hot part's
  // checks are in in_network.measured, and its errors count as protocol errors here too.
  packet.bytes_scheduled = ps.bytes_pushed + ps.bytes_pulled - ps.local_bytes;
  packet.bytes_delivered = driver.NetworkBytesDelivered();
  packet.reductions_scheduled = driver.PushesPlanned();
  packet.reductions_performed = driver.PushesAggregated();
  packet.protocol_errors = driver.ErrorCount() + measured.frames_rejected +
                           measured.sum_mismatches + (measured.exactly_once ? 0 : 1);
  packet.message_delivery = driver.DeliverySummary();
  FillLinkReports(graph, fabric.Counters(), end_ns, packet);
  packet.peak_memory_bytes = PeakResidentBytes();
  // Frames and transport packets share the links' counters: the lost frames are not told apart.
  measured.frames_lost = packet.drops_injected + packet.drops_queue_full;
  report.packet = std::move(packet);
  ina.measured = measured;
  report.in_network = std::move(ina);
  report.parameter_server = std::move(ps);
  AddPsDimensionReports(scenario.dimensions, dimension_bytes, report);
  TakeBusiestPacketLinks(report);
}

}  // namespace hfsim
