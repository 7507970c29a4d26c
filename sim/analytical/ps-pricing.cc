#include "sim/analytical/ps-pricing.h"

#include <algorithm>

#include "sim/analytical/transfer-phase.h"
#include "sim/report/ps-planned-report.h"

namespace hfsim {

double PsPricer::PhaseNs(const ParameterServerWorkload& workload, const PsIterationTraffic& traffic,
                         bool to_servers) const {
  std::vector<PhaseTransfer> transfers;
  for (uint32_t w = 0; w < traffic.workers; ++w) {
    for (uint32_t m = 0; m < traffic.shards; ++m) {
      const auto worker = static_cast<VertexId>(workload.worker_npus[w]);
      const auto server = static_cast<VertexId>(workload.server_npus[m]);
      const auto bytes = static_cast<double>(to_servers ? traffic.SliceBytes(w, m)
                                                        : traffic.PullSliceBytes(w, m));
      transfers.push_back(to_servers ? PhaseTransfer{worker, server, bytes} : PhaseTransfer{server, worker, bytes});
    }
  }
  return ConcurrentTransfersNs(m_graph, transfers);
}

PsIterationPrice PsPricer::Price(const ParameterServerWorkload& workload,
                                 const PsIterationTraffic& traffic) const {
  PsIterationPrice price;
  price.compute_ns = workload.worker_compute_ns;
  price.push_ns = PhaseNs(workload, traffic, true);
  if (m_reduction_Bpns > 0.0) {
    for (uint32_t m = 0; m < traffic.shards; ++m) {
      price.aggregate_ns = std::max(price.aggregate_ns,
                                    static_cast<double>(traffic.ShardBytes(m)) / m_reduction_Bpns);
    }
  }
  price.pull_ns = PhaseNs(workload, traffic, false);
  return price;
}

void RunParameterServerAnalytical(const Scenario& scenario, Report& report) {
  const ParameterServerWorkload& workload = scenario.parameter_server;
  const Topology topology(scenario.dimensions);
  const FabricGraph graph(topology);
  const PsPricer pricer(graph, scenario.communication.reduction_Bpns);
  ParameterServerReport ps;
  ps.iterations = workload.iterations;
  std::vector<double> dimension_bytes(topology.DimensionCount(), 0.0);
  double total_ns = 0.0;
  for (uint32_t i = 0; i < workload.iterations; ++i) {
    const PsIterationTraffic traffic = BuildIterationTraffic(workload, scenario.seed, i);
    const PsIterationPrice price = pricer.Price(workload, traffic);
    ps.iteration_ns.push_back(price.TotalNs());
    ps.compute_ns += price.compute_ns;
    ps.push_ns += price.push_ns;
    ps.aggregate_ns += price.aggregate_ns;
    ps.pull_ns += price.pull_ns;
    total_ns += price.TotalNs();
    AddPlannedIteration(workload, traffic, ps);
    const std::vector<double> bytes = PsDimensionBytes(topology, workload, traffic);
    for (uint32_t d = 0; d < bytes.size(); ++d) dimension_bytes[d] += bytes[d];
  }
  // The closed form delivers what it plans: every push aggregated once at its shard.
  ps.bytes_push_delivered = ps.bytes_pushed;
  ps.bytes_pull_delivered = ps.bytes_pulled;
  ps.keys_aggregated = ps.keys_pushed;
  for (PsServerReport& server : ps.servers) server.keys_aggregated = server.keys_pushed;
  FindBusiestServer(ps);
  report.iteration.total_ns = total_ns / workload.iterations;
  report.iteration.step_compute_ns = ps.compute_ns / workload.iterations;
  report.communication_ns = (ps.push_ns + ps.aggregate_ns + ps.pull_ns) / workload.iterations;
  report.parameter_server = std::move(ps);
  AddPsDimensionReports(scenario.dimensions, dimension_bytes, report);
}

}  // namespace hfsim
