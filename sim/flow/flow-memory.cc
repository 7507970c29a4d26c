#include "sim/flow/flow-memory.h"

#include <set>
#include <tuple>

#include "models/multi-dim-collective.h"
#include "models/schedule-profile.h"
#include "sim/analytical/graph-pricing.h"
#include "sim/scenario/scenario-graph.h"
#include "topologies/fabric-graph.h"
#include "topologies/topology.h"

namespace hfsim {

namespace {

// Calibrated on measured peaks (bench/RESULTS.md, "Flow engine at scale": 36 B per schedule
// transfer, 24 MiB besides on 256 NPUs), rounded up.
constexpr double kBaseBytes = 32.0 * (1 << 20);
constexpr double kBytesPerVertex = 1024.0;
constexpr double kBytesPerLink = 512.0;
constexpr double kBytesPerTransfer = 48.0;

}  // namespace

FlowMemoryEstimate EstimateFlowMemory(const Scenario& scenario) {
  FlowMemoryEstimate estimate;
  const FabricGraphSize size = ComputeFabricGraphSize(scenario.dimensions);
  estimate.fabric_bytes = kBaseBytes + kBytesPerVertex * static_cast<double>(size.vertex_count) +
                          kBytesPerLink * static_cast<double>(size.link_count);
  if (!RunsAsGraph(scenario)) return estimate;
  // A graph that does not compile is refused by the loader; it has no estimate beyond the fabric.
  auto compiled = GraphPricing::Compile(scenario, BuildExecutionGraph(scenario), "workload");
  if (!compiled) return estimate;
  const GraphPricing& pricing = compiled.Value();
  const CommunicationSpec& comm = scenario.communication;
  // The executor's cache key: kind, algorithm and the group's size along the stage.
  std::set<std::tuple<CollectiveKind, CollectiveAlgorithm, uint32_t>> schedules;
  for (const RankClass& rank_class : pricing.Graph().classes) {
    for (const GraphNode& node : rank_class.program) {
      if (node.kind != GraphNodeKind::kCollective) continue;
      const GroupShape& shape = pricing.ShapeOf(node.communicator, rank_class.ranks.front());
      if (shape.dimensions.empty()) continue;
      const Topology seen(DimensionsSeenBy(scenario.dimensions, shape));
      for (const CollectiveStage& stage :
           ComposeStages(node.collective, comm.scheme, shape.dimensions, seen,
                         comm.AlgorithmsFor(node.collective))) {
        const Dimension& dim = seen.Dim(stage.dimension);
        if (!schedules.insert({stage.kind, stage.algorithm, dim.size}).second) continue;
        estimate.schedule_transfers +=
            CachedProfile(stage.kind, stage.algorithm, dim).messages * dim.size;
      }
    }
  }
  estimate.schedule_bytes = kBytesPerTransfer * estimate.schedule_transfers;
  return estimate;
}

}  // namespace hfsim
