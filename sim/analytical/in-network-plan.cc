#include "sim/analytical/in-network-plan.h"

#include "models/in-network-allreduce.h"

namespace hfsim {

std::optional<InNetworkReport> PlanInNetworkReport(const Scenario& scenario) {
  const CollectiveWorkload& collective = scenario.collective;
  if (scenario.workload_kind != WorkloadKind::kCollective || !scenario.aggregation ||
      collective.kind != CollectiveKind::kAllReduce || collective.dimensions.size() != 1) {
    return std::nullopt;
  }
  const uint32_t d = collective.dimensions.front();
  if (scenario.communication.AlgorithmsFor(CollectiveKind::kAllReduce)[d] !=
      CollectiveAlgorithm::kInNetwork) {
    return std::nullopt;
  }
  const AggregationSwitchSpec& spec = *scenario.aggregation;
  const Dimension& dim = scenario.dimensions[d];
  uint64_t npus = 1;
  for (const Dimension& each : scenario.dimensions) npus *= each.size;
  const uint64_t values =
      InNetworkValues(collective.size_bytes, spec, scenario.communication.compression.thc.block);
  const InNetworkAllReducePrice price =
      PriceInNetworkAllReduce(spec, values, dim.bandwidth_Bpns, dim.latency_ns);
  InNetworkReport report;
  report.mode = std::string(ToString(spec.mode));
  report.dimension = d;
  report.workers = spec.workers;
  report.groups = npus / dim.size;
  report.values_per_worker = price.traffic.aggregated_values;
  report.blocks = price.traffic.blocks;
  report.pool_slots = price.traffic.slots_used;
  report.packets_per_worker = price.traffic.packets_per_worker;
  report.value_format = std::string(ToString(spec.value_format));
  report.frame_bytes = price.traffic.frame_bytes;
  report.wire_bytes_per_worker = price.traffic.wire_bytes_per_worker;
  report.update_frame_bytes = price.traffic.update_frame_bytes;
  report.update_wire_bytes_per_worker = price.traffic.update_wire_bytes_per_worker;
  report.bandwidth_bound_ns = price.bandwidth_bound_ns;
  report.window_bound_ns = price.window_bound_ns;
  report.closed_form_ns = price.time_ns;
  return report;
}

}  // namespace hfsim
