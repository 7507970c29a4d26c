#include "sim/scenario/flow-refusal.h"

#include "sim/scenario/scenario-graph.h"

namespace hfsim {

std::optional<std::string> FlowRefusal(const Scenario& scenario) {
  if (!RunsAsGraph(scenario)) {
    return std::string(
        "got \"flow\", which runs training, collective and graph workloads; accepted for a "
        "parameter_server or gossip workload: \"analytical\" or \"packet\"");
  }
  for (const auto& per_dimension : scenario.communication.algorithms) {
    for (const CollectiveAlgorithm algorithm : per_dimension) {
      if (algorithm == CollectiveAlgorithm::kInNetwork) {
        return std::string(
            "got \"flow\", which has no switch that aggregates; accepted with an in_network "
            "algorithm: \"analytical\" or \"packet\"");
      }
    }
  }
  return std::nullopt;
}

}  // namespace hfsim
