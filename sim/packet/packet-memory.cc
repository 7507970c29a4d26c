#include "sim/packet/packet-memory.h"

#include <fmt/format.h>

#include <cstdint>

#include "models/multi-dim-collective.h"
#include "models/schedule-profile.h"
#include "sim/scenario/scenario-graph.h"
#include "topologies/fabric-graph.h"
#include "topologies/topology.h"

namespace hfsim {

namespace {

// Calibrated on measured peaks (bench/RESULTS.md, "Packet engine memory"), rounded up.
constexpr double kBaseBytes = 32.0 * (1 << 20);
constexpr double kBytesPerVertexRdma = 12.0 * 1024;
constexpr double kBytesPerVertexTcp = 128.0 * 1024;
constexpr double kBytesPerLink = 2.0 * 1024;
constexpr double kBytesPerMessage = 128.0;

// Point-to-point messages one NPU sends in one chunk of a collective of `kind` over a group
// of `shape` (each member runs its line's schedule in every stage).
double MessagesPerNpu(const Scenario& scenario, CollectiveKind kind, const GroupShape& shape) {
  const CommunicationSpec& comm = scenario.communication;
  const Topology seen(DimensionsSeenBy(scenario.dimensions, shape));
  double per_npu = 0.0;
  for (const CollectiveStage& stage :
       ComposeStages(kind, comm.scheme, shape.dimensions, seen, comm.AlgorithmsFor(kind))) {
    if (stage.algorithm == CollectiveAlgorithm::kInNetwork) continue;
    const Dimension& dim = seen.Dim(stage.dimension);
    per_npu += CachedProfile(stage.kind, stage.algorithm, dim).messages;
  }
  return per_npu;
}

}  // namespace

double PacketMemoryEstimate::TotalBytes() const { return fabric_bytes + message_bytes; }

PacketMemoryEstimate EstimatePacketMemory(const Scenario& scenario) {
  PacketMemoryEstimate estimate;
  const FabricGraphSize size = ComputeFabricGraphSize(scenario.dimensions);
  const double per_vertex =
      scenario.packet.transport == TransportKind::kTcp ? kBytesPerVertexTcp : kBytesPerVertexRdma;
  estimate.fabric_bytes = kBaseBytes + per_vertex * static_cast<double>(size.vertex_count) +
                          kBytesPerLink * static_cast<double>(size.link_count);
  if (!RunsAsGraph(scenario)) return estimate;
  // Every rank class's collectives and sends, each times the ranks that run it, in the graph
  // the loader placed.
  const PlacedGraph& placed = *PlacedGraphOf(scenario);
  double messages = 0.0;
  for (const RankClass& rank_class : placed.Graph().classes) {
    const double ranks = static_cast<double>(rank_class.ranks.size());
    for (const GraphNode& node : rank_class.program) {
      if (node.kind == GraphNodeKind::kSend) messages += ranks;
      if (node.kind != GraphNodeKind::kCollective) continue;
      const GroupShape& shape = placed.ShapeOf(node.communicator, rank_class.ranks.front());
      if (shape.dimensions.empty()) continue;
      messages += MessagesPerNpu(scenario, node.collective, shape) * ranks *
                  scenario.communication.chunks * node.count;
    }
  }
  estimate.messages = messages >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(messages);
  estimate.message_bytes = kBytesPerMessage * messages;
  return estimate;
}

std::optional<UserError> PacketMemoryRefusal(const Scenario& scenario) {
  const PacketMemoryEstimate estimate = EstimatePacketMemory(scenario);
  const double limit = scenario.packet.max_memory_GiB * 1073741824.0;
  if (estimate.TotalBytes() <= limit) return std::nullopt;
  return UserError{
      scenario.packet.max_memory_given ? "packet.max_memory_GiB" : "engine",
      fmt::format("the packet engine would need about {:.1f} GiB ({:.1f} GiB for the fabric of "
                  "{} NPUs, {:.1f} GiB for {} messages; docs/packet-engine.md, \"Memory\"), "
                  "above the limit of {} GiB; accepted: a smaller scenario, the analytical engine, "
                  "or a larger \"packet.max_memory_GiB\" on a machine that has it",
                  estimate.TotalBytes() / 1073741824.0, estimate.fabric_bytes / 1073741824.0,
                  ComputeFabricGraphSize(scenario.dimensions).npu_count,
                  estimate.message_bytes / 1073741824.0, estimate.messages,
                  scenario.packet.max_memory_GiB)};
}

}  // namespace hfsim
