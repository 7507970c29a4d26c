#include "sim/optimize/time-model.h"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/scenario/scenario-graph.h"

namespace hfsim {

std::optional<UserError> TimeModelRefusal(const Scenario& scenario) {
  if (!RunsAsGraph(scenario)) {
    return UserError{"workload", fmt::format(
        "a {} workload has no closed-form model in the bandwidths; accepted by optimize: a "
        "training, collective or graph workload (hfsim sweep evaluates any workload)",
        scenario.workload_kind == WorkloadKind::kGossip ? "gossip" : "parameter_server")};
  }
  if (scenario.communication.pricing == PricingModel::kAstraSim) {
    return UserError{"communication.pricing", "got \"astra_sim\", which truncates every message "
                     "to whole ns, so the time is a step function of the bandwidths and no "
                     "optimum can be certified; accepted by optimize: \"hfsim\" (hfsim sweep "
                     "evaluates astra_sim pricing)"};
  }
  for (const CollectiveKind kind : kAllCollectiveKinds) {
    for (const CollectiveAlgorithm algorithm : scenario.communication.AlgorithmsFor(kind)) {
      if (algorithm == CollectiveAlgorithm::kInNetwork) {
        return UserError{fmt::format("communication.algorithms.{}", ToString(kind)),
                         "in_network: the switch's aggregation is priced per packet, not by a "
                         "bandwidth model; accepted by optimize: host-based algorithms (hfsim "
                         "sweep evaluates in_network)"};
      }
    }
  }
  return std::nullopt;
}

namespace {

GraphPricing CompileModel(const Scenario& scenario) {
  if (scenario.dimensions.size() > kMaxGradientDimensions) {
    throw std::invalid_argument("TimeModel: more dimensions than TimeGradient holds");
  }
  if (const auto refusal = TimeModelRefusal(scenario)) {
    throw std::invalid_argument("TimeModel: " + refusal->ToString());
  }
  // The graph the loader placed, shared with every other model of this scenario.
  return GraphPricing::Compile(scenario, PlacedGraphOf(scenario));
}

}  // namespace

TimeModel::TimeModel(const Scenario& scenario)
    : m_dimension_count(static_cast<uint32_t>(scenario.dimensions.size())),
      m_graph(CompileModel(scenario)),
      m_traffic_bytes(m_graph.TrafficBytes()) {}

double TimeModel::TimeNs(const std::vector<double>& bandwidth_Bpns) const {
  return m_graph.TotalNs<double>(bandwidth_Bpns);
}

TimeGradient TimeModel::Evaluate(const std::vector<double>& bandwidth_Bpns) const {
  return m_graph.TotalNs<TimeGradient>(bandwidth_Bpns);
}

}  // namespace hfsim
