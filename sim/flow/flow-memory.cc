#include "sim/flow/flow-memory.h"

#include <cmath>
#include <set>
#include <tuple>

#include "models/multi-dim-collective.h"
#include "models/schedule-profile.h"
#include "sim/scenario/scenario-graph.h"
#include "topologies/fabric-graph.h"
#include "topologies/topology.h"

namespace hfsim {

namespace {

// Calibrated on measured peaks (docs/flow.md, "Memory": 36 B per schedule transfer, 310 to 390 B
// per flow draining at once, 24 MiB besides), rounded up so that every calibration run's
// estimate is 1.0 to 1.6 times its peak.
constexpr double kBaseBytes = 32.0 * (1 << 20);
constexpr double kBytesPerVertex = 1024.0;
constexpr double kBytesPerLink = 256.0;
constexpr double kBytesPerTransfer = 48.0;
constexpr double kBytesPerFlow = 400.0;
constexpr double kBytesPerCollectiveRun = 2560.0;

}  // namespace

FlowMemoryEstimate EstimateFlowMemory(const Scenario& scenario) {
  FlowMemoryEstimate estimate;
  const FabricGraphSize size = ComputeFabricGraphSize(scenario.dimensions);
  estimate.fabric_bytes = kBaseBytes + kBytesPerVertex * static_cast<double>(size.vertex_count) +
                          kBytesPerLink * static_cast<double>(size.link_count);
  if (!RunsAsGraph(scenario)) return estimate;
  // The graph the loader placed: its groups' shapes give each collective's schedules.
  const PlacedGraph& placed = *PlacedGraphOf(scenario);
  const CommunicationSpec& comm = scenario.communication;
  const double npus = static_cast<double>(placed.Graph().rank_count);
  // The executor's cache key: kind, algorithm and the group's size along the stage.
  std::set<std::tuple<CollectiveKind, CollectiveAlgorithm, uint32_t>> schedules;
  for (const RankClass& rank_class : placed.Graph().classes) {
    for (const GraphNode& node : rank_class.program) {
      if (node.kind != GraphNodeKind::kCollective) continue;
      const GroupShape& shape = placed.ShapeOf(node.communicator, rank_class.ranks.front());
      if (shape.dimensions.empty()) continue;
      const Topology seen(DimensionsSeenBy(scenario.dimensions, shape));
      // Each group of the class's ranks runs the node `count` times.
      double group = 1.0;
      for (const uint32_t size : shape.sizes) group *= size;
      estimate.collective_runs += static_cast<double>(node.count) *
                                  static_cast<double>(rank_class.ranks.size()) / group;
      for (const CollectiveStage& stage :
           ComposeStages(node.collective, comm.scheme, shape.dimensions, seen,
                         comm.AlgorithmsFor(node.collective))) {
        const Dimension& dim = seen.Dim(stage.dimension);
        if (!schedules.insert({stage.kind, stage.algorithm, dim.size}).second) continue;
        const ScheduleProfile& profile = CachedProfile(stage.kind, stage.algorithm, dim);
        estimate.schedule_transfers += profile.messages * dim.size;
        // The busiest step's sends per NPU (a direct schedule's one step: n - 1), on every NPU
        // of the fabric at once, as every group runs the stage together.
        if (profile.steps > 0) {
          estimate.concurrent_flows += std::ceil(profile.messages / profile.steps) * npus;
        }
      }
    }
  }
  estimate.schedule_bytes = kBytesPerTransfer * estimate.schedule_transfers;
  estimate.flow_bytes = kBytesPerFlow * estimate.concurrent_flows;
  estimate.run_bytes = kBytesPerCollectiveRun * estimate.collective_runs;
  return estimate;
}

}  // namespace hfsim
