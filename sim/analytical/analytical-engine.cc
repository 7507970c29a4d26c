#include "sim/analytical/analytical-engine.h"

#include <optional>

#include "sim/analytical/collective-pricing.h"
#include "sim/analytical/gossip-pricing.h"
#include "sim/convergence-run.h"
#include "sim/analytical/ina-ps-pricing.h"
#include "sim/analytical/ps-pricing.h"
#include "sim/dimension-reports.h"
#include "sim/in-network-plan.h"
#include "sim/version.h"

namespace hfsim {

namespace {

CollectiveReport NewEntry(std::string_view phase, std::string_view group, const CommRequest& request,
                          const std::vector<uint32_t>& dims, const CollectivePrice& price,
                          const std::string& layer) {
  CollectiveReport entry;
  entry.phase = phase;
  entry.group = group;
  entry.kind = request.kind;
  entry.dimensions = dims;
  entry.size_bytes = request.size_bytes;
  entry.occurrences = 0;
  entry.first_layer = layer;
  entry.time_ns = price.time_ns;
  entry.dimension_busy_ns = price.dimension_busy_ns;
  entry.dimension_traffic_bytes = price.dimension_traffic_bytes;
  return entry;
}

// Prices the communication of a training iteration. Identical collectives (same phase, group,
// kind and size) are priced once and merged into one report entry with a count: GPT-3's 96
// identical blocks become one entry with 96 occurrences per phase.
class TrainingPricer {
 public:
  TrainingPricer(const Scenario& scenario, Report& report)
      : m_pricer(scenario.dimensions, scenario.communication, scenario.aggregation),
        m_scenario(scenario),
        m_report(report) {}

  // Time of the request's `count` collectives; adds them to the report.
  double Price(const std::optional<CommRequest>& request, int phase, const LayerWork& layer) {
    if (!request) return 0.0;
    CollectiveReport& entry = m_report.collectives[EntryIndex(*request, phase, layer)];
    entry.occurrences += request->count;
    entry.last_layer = layer.name;
    return entry.time_ns * request->count;
  }

 private:
  static constexpr std::string_view kPhaseNames[] = {"forward", "input_grad", "weight_grad"};

  size_t EntryIndex(const CommRequest& request, int phase, const LayerWork& layer) {
    for (const Known& known : m_known) {
      if (known.phase == phase && known.request.kind == request.kind &&
          known.request.group == request.group && known.request.size_bytes == request.size_bytes) {
        return known.entry;
      }
    }
    const bool data = request.group == ParallelGroup::kData;
    const auto& dims = data ? m_scenario.training.data_dimensions
                            : m_scenario.training.tensor_dimensions;
    const CollectivePrice price = m_pricer.Price(request.kind, request.size_bytes, dims);
    m_report.collectives.push_back(
        NewEntry(kPhaseNames[phase], data ? "data" : "tensor", request, dims, price, layer.name));
    m_known.push_back(Known{phase, request, m_report.collectives.size() - 1});
    return m_known.back().entry;
  }

  struct Known {
    int phase;
    CommRequest request;
    size_t entry;
  };
  CollectivePricer m_pricer;
  const Scenario& m_scenario;
  Report& m_report;
  std::vector<Known> m_known;
};

void RunTraining(const Scenario& scenario, Report& report) {
  const TrainingIteration iteration =
      BuildTrainingIteration(scenario.training.model, scenario.training.config);
  TrainingPricer pricer(scenario, report);
  std::vector<LayerCommTimes> comm_times(iteration.layers.size());
  for (size_t i = 0; i < iteration.layers.size(); ++i) {
    const LayerWork& layer = iteration.layers[i];
    comm_times[i].forward_ns = pricer.Price(layer.forward_comm, 0, layer);
    comm_times[i].input_grad_ns = pricer.Price(layer.input_grad_comm, 1, layer);
    comm_times[i].weight_grad_ns = pricer.Price(layer.weight_grad_comm, 2, layer);
  }
  report.iteration = PlayIteration(iteration, comm_times);
}

void RunCollective(const Scenario& scenario, Report& report) {
  const CollectiveWorkload& collective = scenario.collective;
  const CollectivePricer pricer(scenario.dimensions, scenario.communication, scenario.aggregation);
  const CollectivePrice price =
      pricer.Price(collective.kind, collective.size_bytes, collective.dimensions);
  CollectiveReport entry = NewEntry("collective", "all",
                                    CommRequest{collective.kind, ParallelGroup::kData,
                                                collective.size_bytes, 1},
                                    collective.dimensions, price, "");
  entry.occurrences = 1;
  report.collectives.push_back(std::move(entry));
  report.iteration.total_ns = price.time_ns;
  report.in_network = PlanInNetworkReport(scenario);
}

}  // namespace

Report AnalyticalEngine::Run(const Scenario& scenario) const {
  Report report;
  report.hfsim_version = kHfsimVersion;
  report.engine = "analytical";
  report.npus = 1;
  for (const Dimension& dim : scenario.dimensions) report.npus *= dim.size;
  if (scenario.workload_kind == WorkloadKind::kParameterServer) {
    if (IsLibraScenario(scenario)) {
      RunLibraAnalytical(scenario, report);  // hot keys in the switch, cold ones PS-lite's way
    } else {
      RunParameterServerAnalytical(scenario, report);  // fills its own dimension reports
    }
    AddConvergence(scenario, report);  // time to accuracy, when asked for
    return report;
  }
  if (scenario.workload_kind == WorkloadKind::kGossip) {
    RunGossipAnalytical(scenario, report);  // the learning, and its exchanges priced
    return report;
  }
  if (scenario.workload_kind == WorkloadKind::kTraining) {
    RunTraining(scenario, report);
  } else {
    RunCollective(scenario, report);
  }
  AddDimensionReports(scenario.dimensions, report);
  for (const CollectiveReport& collective : report.collectives) {
    report.communication_ns += collective.time_ns * collective.occurrences;
  }
  return report;
}

}  // namespace hfsim
