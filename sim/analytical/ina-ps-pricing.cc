#include "sim/analytical/ina-ps-pricing.h"

#include <algorithm>

#include "models/in-network-allreduce.h"
#include "sim/analytical/ps-pricing.h"
#include "sim/report/ps-planned-report.h"
#include "topologies/fabric-graph.h"

namespace hfsim {

namespace {

uint64_t ValuesOf(uint64_t bytes) { return InNetworkValues(bytes); }

// The shared-link bound of one iteration (header comment): the busiest link's cold plus hot
// bytes at its bandwidth, plus one latency up and one down.
double SharedBoundNs(const ParameterServerWorkload& workload, const PsIterationTraffic& cold,
                     const AggregationTraffic& hot, uint32_t shards, double bandwidth_Bpns,
                     double latency_ns) {
  const double hot_worker_bytes = static_cast<double>(hot.wire_bytes_per_worker);
  double busiest = 0.0;
  for (uint32_t w = 0; w < cold.workers; ++w) {
    double push = 0.0;
    for (uint32_t m = 0; m < cold.shards; ++m) {
      if (workload.worker_npus[w] != workload.server_npus[m]) push += cold.SliceBytes(w, m);
    }
    busiest = std::max(busiest, push + hot_worker_bytes);  // up (and, for pulls, down)
  }
  for (uint32_t m = 0; m < cold.shards; ++m) {
    double incast = 0.0;
    for (uint32_t w = 0; w < cold.workers; ++w) {
      if (workload.worker_npus[w] != workload.server_npus[m]) incast += cold.SliceBytes(w, m);
    }
    // Hot blocks go to shard (block mod shards) (AggregationSwitchSpec::OwnerShard).
    const uint64_t blocks = hot.blocks / shards + (m < hot.blocks % shards ? 1 : 0);
    busiest = std::max(busiest, incast + static_cast<double>(blocks * hot.frame_bytes));
  }
  return busiest / bandwidth_Bpns + 2.0 * latency_ns;
}

}  // namespace

HotKeySplit SplitHotKeys(const ParameterServerWorkload& workload,
                         const AggregationSwitchSpec& spec) {
  HotKeySplit split;
  const uint64_t capacity = spec.hot_key_capacity_keys;
  if (workload.kind == PsModelKind::kSparse) {
    const uint64_t per_key = ValuesOf(workload.sparse.bytes_per_key);
    split.hot_keys = std::min(workload.sparse.key_count, capacity / per_key);
    split.hot_values = split.hot_keys * per_key;
    return split;
  }
  for (uint64_t bytes : workload.dense.key_bytes) {
    const uint64_t values = ValuesOf(bytes);
    if (split.hot_values + values > capacity) break;
    split.hot_values += values;
    ++split.hot_keys;
  }
  return split;
}

bool IsLibraScenario(const Scenario& scenario) {
  return scenario.workload_kind == WorkloadKind::kParameterServer && scenario.aggregation &&
         scenario.aggregation->mode == AggregationMode::kParameterServer;
}

namespace {

// What every iteration of a Libra-style run shares: its one Switch dimension, the PS-lite pricer
// of the cold keys, the hot/cold split and the hot part's closed form.
struct LibraPricing {
  explicit LibraPricing(const Scenario& scenario)
      : workload(scenario.parameter_server),
        spec(*scenario.aggregation),
        dim(scenario.dimensions.front()),  // the loader allows one Switch dimension
        topology(scenario.dimensions),
        graph(topology),
        pricer(graph, scenario.communication.reduction_Bpns),
        split(SplitHotKeys(workload, spec)),
        hot(PriceInNetworkHotKeys(spec, split.hot_values, dim.bandwidth_Bpns, dim.latency_ns)) {}

  // Prices iteration after iteration: `each(cold traffic, its PS-lite price, cold_ns,
  // shared_ns)`, cold_ns being push + aggregate + pull and shared_ns the shared-link bound.
  template <typename Each>
  void ForEachIteration(uint64_t seed, Each&& each) const {
    for (uint32_t i = 0; i < workload.iterations; ++i) {
      const PsIterationTraffic cold = BuildIterationTraffic(workload, seed, i, split.hot_keys);
      const PsIterationPrice price = pricer.Price(workload, cold);
      const double cold_ns = price.push_ns + price.aggregate_ns + price.pull_ns;
      const double shared_ns = SharedBoundNs(workload, cold, hot.traffic, spec.server_shards,
                                             dim.bandwidth_Bpns, dim.latency_ns);
      each(cold, price, cold_ns, shared_ns);
    }
  }

  // The in_network report as planned, from the sums over iterations of cold_ns and shared_ns.
  InNetworkReport Plan(double cold_sum, double shared_sum) const {
    const double iterations = workload.iterations;
    InNetworkReport ina;
    ina.mode = std::string(ToString(spec.mode));
    ina.dimension = 0;
    ina.workers = spec.workers;
    ina.groups = 1;
    ina.values_per_worker = hot.traffic.aggregated_values;
    ina.blocks = hot.traffic.blocks;
    ina.pool_slots = hot.traffic.slots_used;
    ina.packets_per_worker = hot.traffic.packets_per_worker;
    ina.frame_bytes = hot.traffic.frame_bytes;
    ina.wire_bytes_per_worker = hot.traffic.wire_bytes_per_worker;
    ina.update_frame_bytes = hot.traffic.update_frame_bytes;
    ina.update_wire_bytes_per_worker = hot.traffic.update_wire_bytes_per_worker;
    ina.bandwidth_bound_ns = hot.bandwidth_bound_ns;
    ina.window_bound_ns = hot.window_bound_ns;
    ina.closed_form_ns = hot.time_ns;
    ina.hot_keys = split.hot_keys;
    ina.hot_ns = hot.time_ns;
    ina.cold_ns = cold_sum / iterations;
    ina.shared_ns = shared_sum / iterations;
    return ina;
  }

  const ParameterServerWorkload& workload;
  const AggregationSwitchSpec& spec;
  const Dimension& dim;
  const Topology topology;
  const FabricGraph graph;
  const PsPricer pricer;
  const HotKeySplit split;
  const InNetworkAllReducePrice hot;
};

}  // namespace

InNetworkReport PlanLibraInNetwork(const Scenario& scenario) {
  const LibraPricing libra(scenario);
  double cold_sum = 0.0;
  double shared_sum = 0.0;
  libra.ForEachIteration(scenario.seed, [&](const PsIterationTraffic&, const PsIterationPrice&,
                                            double cold_ns, double shared_ns) {
    cold_sum += cold_ns;
    shared_sum += shared_ns;
  });
  return libra.Plan(cold_sum, shared_sum);
}

void RunLibraAnalytical(const Scenario& scenario, Report& report) {
  const LibraPricing libra(scenario);
  const ParameterServerWorkload& workload = libra.workload;
  const InNetworkAllReducePrice& hot = libra.hot;
  ParameterServerReport ps;
  ps.iterations = workload.iterations;
  std::vector<double> dimension_bytes(libra.topology.DimensionCount(), 0.0);
  double total_ns = 0.0;
  double cold_sum = 0.0;
  double shared_sum = 0.0;
  libra.ForEachIteration(scenario.seed, [&](const PsIterationTraffic& cold,
                                            const PsIterationPrice& price, double cold_ns,
                                            double shared_ns) {
    const double iteration_ns = price.compute_ns + std::max({cold_ns, hot.time_ns, shared_ns});
    ps.iteration_ns.push_back(iteration_ns);
    ps.compute_ns += price.compute_ns;
    ps.push_ns += price.push_ns;
    ps.aggregate_ns += price.aggregate_ns;
    ps.pull_ns += price.pull_ns;
    total_ns += iteration_ns;
    cold_sum += cold_ns;
    shared_sum += shared_ns;
    AddPlannedIteration(workload, cold, ps);
    const std::vector<double> bytes = PsDimensionBytes(libra.topology, workload, cold);
    for (uint32_t d = 0; d < bytes.size(); ++d) dimension_bytes[d] += bytes[d];
    // Hot frames the NPUs send: every worker's M up, and one result per block from its shard.
    dimension_bytes[0] +=
        static_cast<double>(workload.Workers() * hot.traffic.wire_bytes_per_worker +
                            hot.traffic.blocks * hot.traffic.frame_bytes);
  });
  // The closed form delivers what it plans (cold part; the hot part is in in_network).
  ps.bytes_push_delivered = ps.bytes_pushed;
  ps.bytes_pull_delivered = ps.bytes_pulled;
  ps.keys_aggregated = ps.keys_pushed;
  for (PsServerReport& server : ps.servers) server.keys_aggregated = server.keys_pushed;
  FindBusiestServer(ps);
  const double iterations = workload.iterations;
  report.iteration.total_ns = total_ns / iterations;
  report.iteration.step_compute_ns = ps.compute_ns / iterations;
  report.communication_ns = report.iteration.total_ns - report.iteration.step_compute_ns;
  report.parameter_server = std::move(ps);
  report.in_network = libra.Plan(cold_sum, shared_sum);
  AddPsDimensionReports(scenario.dimensions, dimension_bytes, report);
}

}  // namespace hfsim
