#include "sim/analytical/analytical-engine.h"

#include <optional>

#include "sim/analytical/collective-pricing.h"
#include "sim/version.h"

namespace hfsim {

namespace {

// Adds `count` occurrences of a priced collective to the report, merging it with an identical
// earlier one (GPT-3's 96 identical blocks become one entry with 96 occurrences).
void Record(Report& report, std::string_view phase, std::string_view group,
            const CommRequest& request, const std::vector<uint32_t>& dims,
            const CollectivePrice& price, const std::string& layer) {
  for (CollectiveReport& entry : report.collectives) {
    if (entry.phase == phase && entry.group == group && entry.kind == request.kind &&
        entry.size_bytes == request.size_bytes) {
      entry.occurrences += request.count;
      entry.last_layer = layer;
      return;
    }
  }
  CollectiveReport entry;
  entry.phase = phase;
  entry.group = group;
  entry.kind = request.kind;
  entry.dimensions = dims;
  entry.size_bytes = request.size_bytes;
  entry.occurrences = request.count;
  entry.first_layer = layer;
  entry.last_layer = layer;
  entry.time_ns = price.time_ns;
  entry.dimension_busy_ns = price.dimension_busy_ns;
  entry.dimension_traffic_bytes = price.dimension_traffic_bytes;
  report.collectives.push_back(std::move(entry));
}

class TrainingPricer {
 public:
  TrainingPricer(const Scenario& scenario, Report& report)
      : m_pricer(scenario.dimensions, scenario.communication), m_scenario(scenario), m_report(report) {}

  // Time of the request's `count` collectives; records them in the report.
  double Price(const std::optional<CommRequest>& request, std::string_view phase,
               const std::string& layer) {
    if (!request) return 0.0;
    const bool data = request->group == ParallelGroup::kData;
    const auto& dims = data ? m_scenario.training.data_dimensions
                            : m_scenario.training.tensor_dimensions;
    const CollectivePrice& price = Lookup(*request, dims);
    Record(m_report, phase, data ? "data" : "tensor", *request, dims, price, layer);
    return price.time_ns * request->count;
  }

 private:
  // Layers repeat, so the same request recurs: price each distinct one once.
  const CollectivePrice& Lookup(const CommRequest& request, const std::vector<uint32_t>& dims) {
    for (const auto& [known, price] : m_memo) {
      if (known.kind == request.kind && known.group == request.group &&
          known.size_bytes == request.size_bytes) {
        return price;
      }
    }
    m_memo.emplace_back(request, m_pricer.Price(request.kind, request.size_bytes, dims));
    return m_memo.back().second;
  }

  CollectivePricer m_pricer;
  const Scenario& m_scenario;
  Report& m_report;
  std::vector<std::pair<CommRequest, CollectivePrice>> m_memo;
};

void RunTraining(const Scenario& scenario, Report& report) {
  const TrainingIteration iteration =
      BuildTrainingIteration(scenario.training.model, scenario.training.config);
  TrainingPricer pricer(scenario, report);
  std::vector<LayerCommTimes> comm_times(iteration.layers.size());
  for (size_t i = 0; i < iteration.layers.size(); ++i) {
    const LayerWork& layer = iteration.layers[i];
    comm_times[i].forward_ns = pricer.Price(layer.forward_comm, "forward", layer.name);
    comm_times[i].input_grad_ns = pricer.Price(layer.input_grad_comm, "input_grad", layer.name);
    comm_times[i].weight_grad_ns = pricer.Price(layer.weight_grad_comm, "weight_grad", layer.name);
  }
  report.iteration = PlayIteration(iteration, comm_times);
}

void RunCollective(const Scenario& scenario, Report& report) {
  const CollectiveWorkload& collective = scenario.collective;
  const CollectivePricer pricer(scenario.dimensions, scenario.communication);
  const CollectivePrice price =
      pricer.Price(collective.kind, collective.size_bytes, collective.dimensions);
  Record(report, "collective", "all", CommRequest{collective.kind, ParallelGroup::kData,
                                                  collective.size_bytes, 1},
         collective.dimensions, price, "");
  report.iteration.total_ns = price.time_ns;
}

}  // namespace

Report AnalyticalEngine::Run(const Scenario& scenario) const {
  Report report;
  report.hfsim_version = kHfsimVersion;
  report.engine = "analytical";
  report.npus = 1;
  for (const Dimension& dim : scenario.dimensions) report.npus *= dim.size;
  if (scenario.workload_kind == WorkloadKind::kTraining) {
    RunTraining(scenario, report);
  } else {
    RunCollective(scenario, report);
  }
  const double total_ns = report.iteration.total_ns;
  for (uint32_t d = 0; d < scenario.dimensions.size(); ++d) {
    const Dimension& dim = scenario.dimensions[d];
    DimensionReport entry;
    entry.index = d;
    entry.kind = std::string(ToString(dim.kind));
    entry.size = dim.size;
    entry.bandwidth_GBps = dim.bandwidth_Bpns;
    entry.latency_ns = dim.latency_ns;
    for (const CollectiveReport& collective : report.collectives) {
      entry.traffic_bytes_per_npu += collective.dimension_traffic_bytes[d] * collective.occurrences;
      entry.busy_ns += collective.dimension_busy_ns[d] * collective.occurrences;
    }
    entry.utilisation =
        total_ns > 0.0 ? entry.traffic_bytes_per_npu / (dim.bandwidth_Bpns * total_ns) : 0.0;
    report.total_traffic_bytes += entry.traffic_bytes_per_npu * static_cast<double>(report.npus);
    report.dimensions.push_back(std::move(entry));
  }
  for (const CollectiveReport& collective : report.collectives) {
    report.communication_ns += collective.time_ns * collective.occurrences;
  }
  return report;
}

}  // namespace hfsim
