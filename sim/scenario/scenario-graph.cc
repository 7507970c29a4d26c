#include "sim/scenario/scenario-graph.h"

#include <stdexcept>

#include "sim/scenario/pipeline-section.h"
#include "topologies/topology.h"
#include "workloads/graph/training-graph.h"

namespace hfsim {

bool RanksRunDifferentPrograms(const Scenario& scenario) {
  return scenario.workload_kind == WorkloadKind::kGraph ||
         (scenario.workload_kind == WorkloadKind::kTraining && scenario.training.MegatronLayout());
}

bool RunsAsGraph(const Scenario& scenario) {
  return scenario.workload_kind == WorkloadKind::kTraining ||
         scenario.workload_kind == WorkloadKind::kCollective ||
         scenario.workload_kind == WorkloadKind::kGraph;
}

ExecutionGraph BuildExecutionGraph(const Scenario& scenario) {
  switch (scenario.workload_kind) {
    case WorkloadKind::kTraining: {
      const TrainingWorkload& training = scenario.training;
      if (training.MegatronLayout()) {
        auto graph = PipelineTrainingGraph(training.model, training.config, training.pipeline,
                                           Topology(scenario.dimensions), kMaxGeneratedGraphNodes);
        // The loader checked the layout against the fabric, the model and the batch.
        if (auto* reason = std::get_if<std::string>(&graph)) {
          throw std::logic_error("BuildExecutionGraph: " + *reason);
        }
        return std::get<ExecutionGraph>(std::move(graph));
      }
      TrainingIteration iteration = BuildTrainingIteration(training.model, training.config);
      BucketGradients(iteration.layers, 0, static_cast<uint32_t>(iteration.layers.size()),
                      training.config.bucket_bytes);
      return TrainingGraph(std::move(iteration), Topology(scenario.dimensions),
                           training.data_dimensions,
                           training.tensor_dimensions, training.tensor_per_dimension);
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
  throw std::invalid_argument("BuildExecutionGraph: this workload has its own driver");
}

}  // namespace hfsim
