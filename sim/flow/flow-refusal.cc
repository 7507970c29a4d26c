#include "sim/flow/flow-refusal.h"

#include <fmt/format.h>

#include "sim/flow/flow-memory.h"
#include "sim/scenario/scenario-graph.h"

namespace hfsim {

std::optional<std::string> FlowModelRefusal(const Scenario& scenario) {
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

std::optional<std::string> FlowRefusal(const Scenario& scenario) {
  if (auto refusal = FlowModelRefusal(scenario)) return refusal;
  const FlowMemoryEstimate memory = EstimateFlowMemory(scenario);
  const double limit = scenario.packet.max_memory_GiB * 1073741824.0;
  if (memory.TotalBytes() > limit) {
    return fmt::format(
        "got \"flow\", which would need about {:.1f} GiB ({:.1f} GiB for the fabric, {:.1f} GiB "
        "for {:.0f} block transfers of the collectives' schedules, {:.1f} GiB for {:.0f} flows "
        "draining at once, {:.1f} GiB for {:.0f} runs of a collective by a group; docs/flow.md, "
        "\"Memory\"), above the limit of {} GiB (packet.max_memory_GiB, which bounds flow runs "
        "too); accepted: a smaller scenario, the analytical engine, or a larger "
        "\"packet.max_memory_GiB\" on a machine that has it",
        memory.TotalBytes() / 1073741824.0, memory.fabric_bytes / 1073741824.0,
        memory.schedule_bytes / 1073741824.0, memory.schedule_transfers,
        memory.flow_bytes / 1073741824.0, memory.concurrent_flows,
        memory.run_bytes / 1073741824.0, memory.collective_runs, scenario.packet.max_memory_GiB);
  }
  return std::nullopt;
}

}  // namespace hfsim
