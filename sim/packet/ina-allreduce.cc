#include "sim/packet/ina-allreduce.h"

#include <ns3/mac48-address.h>
#include <ns3/node.h>
#include <ns3/queue.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/simulator.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>

#include "base/deterministic-rng.h"
#include "models/aggregation/aggregation-packet.h"
#include "models/aggregation/aggregation-worker.h"
#include "models/aggregation/fixed-point.h"
#include "models/aggregation/switch-aggregator.h"
#include "models/aggregation/thc-worker-input.h"
#include "models/compression/thc.h"
#include "models/in-network-allreduce.h"
#include "sim/analytical/in-network-plan.h"
#include "sim/packet/link-faults.h"
#include "sim/packet/link-reports.h"
#include "sim/packet/ns3-clock.h"
#include "sim/packet/point-to-point-links.h"
#include "sim/report/dimension-reports.h"
#include "sim/runs/peak-memory.h"
#include "topologies/fabric-graph.h"

namespace hfsim {

namespace {

constexpr uint16_t kProtocol = 0x0800;  // the frame inside is IPv4; PPP adds its 2-byte header
constexpr uint32_t kPppHeaderBytes = 2;

double NowNs() { return static_cast<double>(ns3::Simulator::Now().GetPicoSeconds()) * 1e-3; }

}  // namespace

std::vector<float> DrawAggregationTensor(uint64_t seed, uint64_t npu, uint64_t values, uint32_t k) {
  std::seed_seq sequence{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                         static_cast<uint32_t>(npu), static_cast<uint32_t>(npu >> 32), 0x1a5u};
  std::mt19937_64 random(sequence);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<float> tensor(values);
  for (uint64_t i = 0; i < values; ++i) {
    const int exponent = static_cast<int>((i / k) % 8) - 4;
    tensor[i] = static_cast<float>(std::ldexp(uniform(random), exponent));
  }
  return tensor;
}

uint64_t CountGroupSumMismatches(const AggregationSwitchSpec& spec,
                                 const std::vector<const std::vector<float>*>& tensors,
                                 const std::vector<const AggregationWorker*>& workers) {
  const uint64_t k = spec.values_per_packet;
  const uint64_t values = workers.front()->AggregatedValues();
  const uint64_t blocks = (values + k - 1) / k;
  const bool exponents = spec.scheme == FixedPointScheme::kBlockExponent;
  uint64_t mismatches = 0;
  std::vector<int64_t> exact(k);
  for (uint64_t b = 0; b < blocks; ++b) {
    const uint64_t begin = b * k;
    const uint64_t count = std::min(k, values - begin);
    int32_t exponent = kMinBlockExponent;
    for (const std::vector<float>* tensor : tensors) {
      exponent = std::max(exponent, BlockExponent(std::span(tensor->data() + begin, count)));
    }
    std::fill(exact.begin(), exact.end(), 0);
    for (const std::vector<float>* tensor : tensors) {
      const std::vector<int32_t> q =
          QuantiseBlock(std::span(tensor->data() + begin, count), spec, exponent);
      for (uint64_t i = 0; i < count; ++i) exact[i] += q[i];
    }
    for (const AggregationWorker* worker : workers) {
      if (exponents && worker->AgreedExponent(b) != exponent) {
        mismatches += count;
        continue;
      }
      for (uint64_t i = 0; i < count; ++i) {
        if (worker->SummedIntegers()[begin + i] != exact[i]) ++mismatches;
      }
    }
  }
  return mismatches;
}

namespace {

class InNetworkSimulation {
 public:
  InNetworkSimulation(const Scenario& scenario, const FabricGraph& graph, uint32_t d)
      : m_scenario(scenario),
        m_graph(graph),
        m_topology(graph.GetTopology()),
        m_d(d),
        m_n(m_topology.Dim(d).size),
        m_spec(*scenario.aggregation),
        m_faults(graph, scenario.packet, scenario.seed),
        m_thc_config(scenario.communication.compression.thc),
        m_values(InNetworkValues(scenario.collective.size_bytes)) {
    BuildLinks();
    m_aggregators.assign(m_topology.GroupCount(d), SwitchAggregator(m_spec));
    const uint64_t npus = m_topology.NpuCount();
    AggregationWorkerOptions options;
    options.retransmit_timeout_ns = scenario.packet.retransmit_timeout_ns;
    m_tensors.resize(npus);
    m_workers.resize(npus);
    m_timer_armed.assign(npus, false);
    m_done_ns.assign(npus, -1.0);
    if (m_spec.IsThc()) {
      m_thc.resize(npus);
      m_packed.resize(npus);
      m_norm_exponent.resize(npus);
    }
    for (uint64_t npu = 0; npu < npus; ++npu) {
      m_tensors[npu] =
          DrawAggregationTensor(scenario.seed, npu, m_values, m_spec.values_per_packet);
      const uint32_t id = m_topology.Coordinate(npu, d);
      m_workers[npu] =
          m_spec.IsThc() ? std::make_unique<AggregationWorker>(m_spec, id, ThcInput(npu), options)
                         : std::make_unique<AggregationWorker>(m_spec, id, m_tensors[npu], options);
    }
  }

  void Start() {
    for (uint64_t npu = 0; npu < m_workers.size(); ++npu) {
      SendFromWorker(npu, m_workers[npu]->Start(0.0));
      if (m_workers[npu]->Done()) m_done_ns[npu] = 0.0;  // nothing to aggregate
      ArmTimer(npu);
    }
  }

  double EndNs() const { return *std::max_element(m_done_ns.begin(), m_done_ns.end()); }
  bool AllDone() const {
    return std::all_of(m_done_ns.begin(), m_done_ns.end(), [](double t) { return t >= 0.0; });
  }
  const std::vector<LinkCounters>& Links() const { return m_counters; }

  // Sums what the workers and switches counted and checks exactly-once and the exact sums.
  InNetworkMeasured Measure(uint64_t packets_per_worker) const {
    InNetworkMeasured m;
    m.frames_rejected = m_frames_rejected;
    for (const auto& worker : m_workers) {
      const WorkerCounters& c = worker->Counters();
      m.updates_sent += c.packets_sent;
      m.retransmissions += c.retransmissions;
      m.results_accepted += c.results_accepted;
      m.stale_results += c.stale_results;
    }
    for (const SwitchAggregator& aggregator : m_aggregators) {
      const SwitchCounters& c = aggregator.Counters();
      m.updates_aggregated += c.updates_aggregated;
      m.slots_completed += c.slots_completed;
      m.duplicates_dropped += c.duplicates_dropped;
      m.results_resent += c.results_resent;
      m.frames_rejected += c.rejected;
    }
    for (const LinkCounters& c : m_counters) m.frames_lost += c.drops_injected + c.drops_queue_full;
    m.slots_expected = packets_per_worker * m_aggregators.size();
    bool every_worker_once = AllDone();
    for (const auto& worker : m_workers) {
      every_worker_once =
          every_worker_once && worker->Counters().results_accepted == packets_per_worker;
    }
    m.exactly_once = every_worker_once && m.slots_completed == m.slots_expected &&
                     m.updates_aggregated == m.slots_expected * m_n;
    m.sum_mismatches = m_spec.IsThc() ? CountThcMismatches(&m.decoded_nmse) : CountSumMismatches();
    m.exact_sums = AllDone() && m.sum_mismatches == 0;
    return m;
  }

 private:
  // NPU `npu`'s THC encoder on its gradient: its norm exponent now, its indices once the switch
  // has agreed the largest (the packed form is kept for the independent check).
  ThcWorkerInput ThcInput(uint64_t npu) {
    m_thc[npu] = std::make_unique<ThcWorker>(m_thc_config, m_values,
                                             SplitMix64(m_scenario.seed ^ SplitMix64(npu)));
    const Eigen::VectorXd gradient = Eigen::Map<const Eigen::VectorXf>(
                                         m_tensors[npu].data(), static_cast<Eigen::Index>(m_values))
                                         .cast<double>();
    ThcWorkerInput input = MakeThcWorkerInput(*m_thc[npu], gradient, &m_packed[npu]);
    m_norm_exponent[npu] = input.norm_exponent;
    return input;
  }

  // THC, per group: the agreed exponent is the group's largest, the lane sums equal the software
  // aggregator's sums of the same packed indices, and the decoded mean's error against the exact
  // mean of the group's gradients (the largest over groups, in *nmse).
  uint64_t CountThcMismatches(std::optional<double>* nmse) const {
    uint64_t mismatches = 0;
    double worst = 0.0;
    for (const std::vector<uint64_t>& group : GroupMembers()) {
      int32_t agreed = std::numeric_limits<int32_t>::min();
      std::vector<std::vector<uint8_t>> packed;
      Eigen::VectorXd mean = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(m_values));
      bool encoded = true;  // a worker that never got its first result has no indices
      for (uint64_t npu : group) {
        agreed = std::max(agreed, m_norm_exponent[npu]);
        encoded = encoded && !m_packed[npu].empty();
        packed.push_back(m_packed[npu]);
        for (uint64_t i = 0; i < m_values; ++i)
          mean(static_cast<Eigen::Index>(i)) += m_tensors[npu][i];
      }
      mean /= static_cast<double>(group.size());
      const uint64_t padded = m_thc.front()->PaddedLength();
      if (!encoded) {  // an unfinished run: nothing of this group can be checked
        mismatches += padded * group.size();
        continue;
      }
      const std::vector<uint32_t> exact = AggregateThc(packed, m_thc_config, padded);
      for (uint64_t npu : group) {
        const AggregationWorker& worker = *m_workers[npu];
        if (worker.AgreedNormExponent() != agreed || worker.SummedIntegers().size() != padded) {
          mismatches += padded;
          continue;
        }
        for (uint64_t i = 0; i < padded; ++i) {
          if (static_cast<uint32_t>(worker.SummedIntegers()[i]) != exact[i]) ++mismatches;
        }
      }
      const std::vector<int32_t>& lanes = m_workers[group.front()]->SummedIntegers();
      const std::vector<uint32_t> sums(lanes.begin(), lanes.end());
      const Eigen::VectorXd decoded = DecodeThc(sums, static_cast<uint32_t>(group.size()),
                                                std::ldexp(1.0, agreed), m_thc_config, m_values);
      const double energy = mean.squaredNorm();
      worst = std::max(worst, energy > 0.0 ? (decoded - mean).squaredNorm() / energy
                                           : (decoded - mean).squaredNorm());
    }
    *nmse = worst;
    return mismatches;
  }

  // Dimension d's links only (point-to-point-links.h), a node where a device needs one.
  void BuildLinks() {
    const uint64_t links = m_graph.LinkCount();
    m_devices.resize(links);
    m_counters.resize(links);
    m_nodes.resize(m_graph.NodeCount());
    PointToPointLinkOptions options;
    options.queue_bytes = static_cast<uint32_t>(m_scenario.packet.queue_bytes);
    options.wired = [this](const FabricLink& link) { return link.dimension == m_d; };
    BuildPointToPointLinks(m_graph, options, m_nodes, m_devices,
                           [this](LinkId id, const ns3::Ptr<ns3::PointToPointNetDevice>& device) {
                             device->SetReceiveCallback(ns3::MakeBoundCallback(
                                 &InNetworkSimulation::Receive, this,
                                 static_cast<uint32_t>(m_graph.Link(id).source)));
                           });
  }

  static bool Receive(InNetworkSimulation* self, uint32_t vertex, ns3::Ptr<ns3::NetDevice>,
                      ns3::Ptr<const ns3::Packet> packet, uint16_t, const ns3::Address&) {
    std::vector<uint8_t> frame(packet->GetSize());
    packet->CopyData(frame.data(), static_cast<uint32_t>(frame.size()));
    std::string error;
    const auto parsed = ParseAggregationPacket(frame, self->m_spec.values_per_packet, &error,
                                               self->m_spec.IsThc() ? self->m_spec.thc_bits : 0);
    if (!parsed) {
      ++self->m_frames_rejected;
      return true;
    }
    if (self->m_graph.IsSwitch(vertex)) {
      self->AtSwitch(vertex, *parsed);
    } else {
      self->AtWorker(vertex, *parsed);
    }
    return true;
  }

  void AtSwitch(uint32_t vertex, const AggregationPacket& packet) {
    const uint64_t group = m_graph.SwitchGroup(vertex);
    for (const AggregationPacket& out : m_aggregators[group].Receive(packet)) {
      if (out.destination.kind != EndpointKind::kWorker || out.destination.index >= m_n) {
        ++m_frames_rejected;  // allreduce mode sends results to workers only
        continue;
      }
      Transmit(m_graph.GroupLinkId(m_d, group, m_n + out.destination.index), out);
    }
  }

  void AtWorker(uint64_t npu, const AggregationPacket& packet) {
    AggregationWorker& worker = *m_workers[npu];
    SendFromWorker(npu, worker.OnPacket(packet, NowNs()));
    if (worker.Done() && m_done_ns[npu] < 0.0) m_done_ns[npu] = NowNs();
    ArmTimer(npu);
  }

  void SendFromWorker(uint64_t npu, const std::vector<AggregationPacket>& packets) {
    const LinkId up = m_graph.NpuLinkId(npu, m_d, m_topology.Coordinate(npu, m_d));
    for (const AggregationPacket& p : packets) Transmit(up, p);
  }

  // One timer per worker at its earliest deadline. New deadlines are always later than pending
  // ones (now + timeout), so a running timer never needs to move earlier: it fires, resends what
  // expired and re-arms at the next deadline.
  void ArmTimer(uint64_t npu) {
    if (m_timer_armed[npu]) return;
    const std::optional<double> next = m_workers[npu]->NextTimeoutNs();
    if (!next) return;
    const double delay_ps = std::max(0.0, std::ceil((*next - NowNs()) * 1e3));
    m_timer_armed[npu] = true;
    ns3::Simulator::Schedule(CheckedDelayPs(delay_ps), &InNetworkSimulation::OnTimer, this, npu);
  }

  void OnTimer(uint64_t npu) {
    m_timer_armed[npu] = false;
    SendFromWorker(npu, m_workers[npu]->OnTimeout(NowNs()));
    ArmTimer(npu);
  }

  void Transmit(LinkId link, const AggregationPacket& packet) {
    LinkCounters& counters = m_counters[link];
    if (m_faults.HasFaults(link) && m_faults.Lose(link, NowNs())) {
      ++counters.drops_injected;
      return;
    }
    const std::vector<uint8_t> frame = SerializeAggregationPacket(packet);
    auto p = ns3::Create<ns3::Packet>(frame.data(), static_cast<uint32_t>(frame.size()));
    ns3::PointToPointNetDevice& device = *m_devices[link];
    if (!device.Send(p, ns3::Mac48Address::GetBroadcast(), kProtocol)) {
      ++counters.drops_queue_full;
      return;
    }
    ++counters.packets;
    counters.bytes += frame.size() + kPppHeaderBytes;
    counters.queue_peak_bytes =
        std::max<uint64_t>(counters.queue_peak_bytes, device.GetQueue()->GetNBytes());
  }

  // The NPUs of each switch's group, in worker-id order.
  std::vector<std::vector<uint64_t>> GroupMembers() const {
    std::vector<std::vector<uint64_t>> members(m_aggregators.size());
    for (uint64_t npu = 0; npu < m_workers.size(); ++npu) {
      members[m_graph.GroupIndex(npu, m_d)].push_back(npu);
    }
    return members;
  }

  // Per group (sim/packet/ina-allreduce.h, CountGroupSumMismatches).
  uint64_t CountSumMismatches() const {
    uint64_t mismatches = 0;
    for (const std::vector<uint64_t>& group : GroupMembers()) {
      std::vector<const std::vector<float>*> tensors;
      std::vector<const AggregationWorker*> workers;
      for (uint64_t npu : group) {
        tensors.push_back(&m_tensors[npu]);
        workers.push_back(m_workers[npu].get());
      }
      mismatches += CountGroupSumMismatches(m_spec, tensors, workers);
    }
    return mismatches;
  }

  const Scenario& m_scenario;
  const FabricGraph& m_graph;
  const Topology& m_topology;
  uint32_t m_d;
  uint32_t m_n;
  AggregationSwitchSpec m_spec;
  LinkFaults m_faults;
  ThcConfig m_thc_config;
  uint64_t m_values;  ///< fp32 values of each NPU's gradient
  std::vector<ns3::Ptr<ns3::Node>> m_nodes;
  std::vector<ns3::Ptr<ns3::PointToPointNetDevice>> m_devices;  ///< by link id, dimension d only
  std::vector<LinkCounters> m_counters;
  std::vector<SwitchAggregator> m_aggregators;  ///< by group of dimension d
  std::vector<std::vector<float>> m_tensors;    ///< by NPU
  std::vector<std::unique_ptr<AggregationWorker>> m_workers;
  // THC jobs, by NPU: the encoder, the packed indices it sent, its norm exponent.
  std::vector<std::unique_ptr<ThcWorker>> m_thc;
  std::vector<std::vector<uint8_t>> m_packed;
  std::vector<int32_t> m_norm_exponent;
  std::vector<bool> m_timer_armed;
  std::vector<double> m_done_ns;
  uint64_t m_frames_rejected = 0;
};

}  // namespace

bool RunsInNetworkAllReduce(const Scenario& scenario) {
  return PlanInNetworkReport(scenario).has_value();
}

void RunInNetworkAllReduce(const Scenario& scenario, Report& report) {
  std::optional<InNetworkReport> plan = PlanInNetworkReport(scenario);
  if (!plan) throw std::invalid_argument("RunInNetworkAllReduce: no in_network all_reduce");
  const uint32_t d = plan->dimension;
  const Topology topology(scenario.dimensions);
  const FabricGraph graph(topology);
  report.npus = topology.NpuCount();
  InNetworkSimulation sim(scenario, graph, d);
  sim.Start();
  const double wall_seconds = RunSimulatorTimed();
  const double end_ns = sim.AllDone() ? sim.EndNs() : NowNs();
  const InNetworkMeasured measured = sim.Measure(plan->packets_per_worker);

  report.iteration.total_ns = end_ns;
  report.communication_ns = end_ns;
  CollectiveReport entry;
  entry.phase = "collective";
  entry.group = "all";
  entry.kind = CollectiveKind::kAllReduce;
  entry.dimensions = scenario.collective.dimensions;
  entry.size_bytes = scenario.collective.size_bytes;
  entry.occurrences = 1;
  entry.time_ns = end_ns;
  entry.dimension_busy_ns.assign(scenario.dimensions.size(), 0.0);
  entry.dimension_traffic_bytes.assign(scenario.dimensions.size(), 0.0);
  entry.dimension_traffic_bytes[d] = static_cast<double>(plan->update_wire_bytes_per_worker);
  report.collectives.push_back(std::move(entry));

  PacketReport packet;
  packet.events = ns3::Simulator::GetEventCount();
  packet.simulated_ns = end_ns;
  packet.wall_seconds = wall_seconds;
  packet.transport.data_packets_sent = measured.updates_sent;
  packet.transport.retransmitted_packets = measured.retransmissions;
  packet.transport.timeouts = measured.retransmissions;
  packet.transport.duplicates_received = measured.duplicates_dropped + measured.stale_results;
  // Conservation: the plan's frames up and down, against the frames the protocol took once
  // (updates added at a switch, results accepted by a worker); reductions are updates added.
  packet.bytes_scheduled =
      report.npus * (plan->update_wire_bytes_per_worker + plan->wire_bytes_per_worker);
  packet.bytes_delivered = measured.updates_aggregated * plan->update_frame_bytes +
                           measured.results_accepted * plan->frame_bytes;
  packet.reductions_scheduled = measured.slots_expected * plan->workers;
  packet.reductions_performed = measured.updates_aggregated;
  packet.protocol_errors =
      measured.frames_rejected + measured.sum_mismatches + (measured.exactly_once ? 0 : 1);
  FillLinkReports(graph, sim.Links(), end_ns, packet);
  packet.peak_memory_bytes = PeakResidentBytes();
  report.packet = std::move(packet);
  plan->measured = measured;
  report.in_network = std::move(plan);

  AddDimensionReports(scenario.dimensions, report);
  TakeBusiestPacketLinks(report);
}

}  // namespace hfsim
