#include "sim/scenario/scenario-graph.h"

#include <stdexcept>

#include "sim/scenario/pipeline-section.h"
#include "topologies/topology.h"
#include "workloads/graph/training-graph.h"

namespace hfsim {

namespace {

// Where each workload's graph is refused.
std::string WorkloadKey(const Scenario& scenario) {
  switch (scenario.workload_kind) {
    case WorkloadKind::kTraining:
      return "workload.training.parallelism";
    case WorkloadKind::kCollective:
      return "workload.collective";
    default:
      return "workload.graph";
  }
}

}  // namespace

bool RanksRunDifferentPrograms(const Scenario& scenario) {
  return scenario.workload_kind == WorkloadKind::kGraph ||
         (scenario.workload_kind == WorkloadKind::kTraining && scenario.training.MegatronLayout());
}

bool RunsAsGraph(const Scenario& scenario) {
  return scenario.workload_kind == WorkloadKind::kTraining ||
         scenario.workload_kind == WorkloadKind::kCollective ||
         scenario.workload_kind == WorkloadKind::kGraph;
}

Expected<ExecutionGraph> GenerateWorkloadGraph(const Scenario& scenario) {
  switch (scenario.workload_kind) {
    case WorkloadKind::kTraining: {
      const TrainingWorkload& training = scenario.training;
      // Ranks along the dimension lists (the data x tensor loop), or composed from the axes.
      DimensionPlacement lists;
      if (!training.MegatronLayout()) {
        lists = {training.data_dimensions, training.tensor_dimensions,
                 training.tensor_per_dimension};
      }
      auto graph = TrainingGraph(training.model, training.config, training.pipeline,
                                 Topology(scenario.dimensions),
                                 training.MegatronLayout() ? nullptr : &lists,
                                 kMaxGeneratedGraphNodes);
      if (auto* reason = std::get_if<std::string>(&graph)) {
        return UserError{WorkloadKey(scenario), *reason};
      }
      return std::get<ExecutionGraph>(std::move(graph));
    }
    case WorkloadKind::kCollective: {
      const CollectiveWorkload& collective = scenario.collective;
      return CollectiveGraph(collective.kind, collective.size_bytes, Topology(scenario.dimensions),
                             collective.dimensions);
    }
    case WorkloadKind::kGraph:
      return scenario.graph;
    case WorkloadKind::kParameterServer:
    case WorkloadKind::kGossip:
      break;
  }
  throw std::invalid_argument("GenerateWorkloadGraph: this workload has its own driver");
}

ExecutionGraph BuildExecutionGraph(const Scenario& scenario) {
  auto graph = GenerateWorkloadGraph(scenario);
  // The loader refused every layout the generator refuses.
  if (!graph) throw std::logic_error("BuildExecutionGraph: " + graph.Error().ToString());
  return std::move(graph).Value();
}

Expected<std::shared_ptr<const PlacedGraph>> PlaceWorkloadGraph(const Scenario& scenario) {
  auto graph = GenerateWorkloadGraph(scenario);
  if (!graph) return graph.Error();
  auto placed = PlaceGraph(Topology(scenario.dimensions), std::move(graph).Value());
  if (auto* reason = std::get_if<std::string>(&placed)) {
    return UserError{WorkloadKey(scenario), *reason};
  }
  return std::make_shared<const PlacedGraph>(std::get<PlacedGraph>(std::move(placed)));
}

const std::shared_ptr<const PlacedGraph>& PlacedGraphOf(const Scenario& scenario) {
  if (!scenario.placed_graph) {
    throw std::logic_error("PlacedGraphOf: the scenario has no placed graph (not loaded, or its "
                           "workload runs its own driver)");
  }
  return scenario.placed_graph;
}

}  // namespace hfsim
