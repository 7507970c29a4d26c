#include "sim/packet/packet-message-size.h"

#include <fmt/format.h>

#include <cmath>

#include "models/multi-dim-collective.h"
#include "models/schedule.h"
#include "sim/analytical/graph-pricing.h"
#include "sim/scenario/scenario-graph.h"
#include "topologies/topology.h"

namespace hfsim {

namespace {

// The largest message of one collective of `size_bytes` over a group of `shape`, cut into the
// run's chunks as the packet engine cuts it: the first chunk is the larger one (BlockBytes),
// each stage's buffer is round(fraction x chunk), and a transfer of k of the schedule's B blocks
// starting at block 0 is the largest of its length (the first blocks carry a byte more).
uint64_t LargestCollectiveMessage(const Scenario& scenario, CollectiveKind kind,
                                  uint64_t size_bytes, const GroupShape& shape) {
  const CommunicationSpec& comm = scenario.communication;
  const Topology seen(DimensionsSeenBy(scenario.dimensions, shape));
  const uint64_t chunk = size_bytes / comm.chunks + (size_bytes % comm.chunks != 0 ? 1 : 0);
  uint64_t largest = 0;
  for (const CollectiveStage& stage :
       ComposeStages(kind, comm.scheme, shape.dimensions, seen, comm.AlgorithmsFor(kind))) {
    const TransferBlocks blocks =
        LargestTransfer(stage.kind, stage.algorithm, seen.Dim(stage.dimension).size);
    if (blocks.block_count == 0) continue;  // in-network: the switch's protocol
    const auto buffer = static_cast<uint64_t>(
        std::llround(stage.buffer_fraction * static_cast<double>(chunk)));
    largest = std::max(largest, BlockRunBytes(buffer, blocks.block_count, 0, blocks.largest));
  }
  return largest;
}

std::string WorkloadPath(const Scenario& scenario) {
  switch (scenario.workload_kind) {
    case WorkloadKind::kCollective:
      return "workload.collective";
    case WorkloadKind::kGraph:
      return "workload.graph";
    default:
      return "workload.training";
  }
}

}  // namespace

uint64_t MaxRdmaMessageBytes(uint32_t mtu_bytes) {
  return uint64_t{UINT32_MAX} * mtu_bytes;
}

std::optional<UserError> PacketMessageSizeRefusal(const Scenario& scenario) {
  if (scenario.packet.transport != TransportKind::kRdma || !RunsAsGraph(scenario)) {
    return std::nullopt;
  }
  // A graph that does not compile is refused by the loader for that reason.
  auto compiled = GraphPricing::Compile(scenario, BuildExecutionGraph(scenario), "workload");
  if (!compiled) return std::nullopt;
  const GraphPricing& pricing = compiled.Value();
  const ExecutionGraph& graph = pricing.Graph();
  const uint64_t limit = MaxRdmaMessageBytes(scenario.packet.mtu_bytes);
  for (const RankClass& rank_class : graph.classes) {
    for (const GraphNode& node : rank_class.program) {
      uint64_t largest = 0;
      if (node.kind == GraphNodeKind::kSend) {
        largest = node.size_bytes;
      } else if (node.kind == GraphNodeKind::kCollective) {
        const GroupShape& shape = pricing.ShapeOf(node.communicator, rank_class.ranks.front());
        if (shape.dimensions.empty()) continue;
        largest = LargestCollectiveMessage(scenario, node.collective, node.size_bytes, shape);
      }
      if (largest <= limit) continue;
      const std::string what =
          node.kind == GraphNodeKind::kSend
              ? fmt::format("a send of {} bytes", node.size_bytes)
              : fmt::format("{} {} of {} bytes in {} chunk{}",
                            node.collective == CollectiveKind::kReduceScatter ? "a" : "an",
                            ToString(node.collective),
                            node.size_bytes, scenario.communication.chunks,
                            scenario.communication.chunks == 1 ? "" : "s");
      const std::string layer =
          node.layer != kNoLayer ? fmt::format(" (layer \"{}\")", graph.layers[node.layer]) : "";
      return UserError{
          WorkloadPath(scenario),
          fmt::format("{}{} would send a message of {} bytes at packet level, more than the RDMA "
                      "transport's limit of 2^32 - 1 packets of packet.mtu_bytes {} ({} bytes): "
                      "it numbers a message's packets in 32 bits; accepted: messages of at most "
                      "{} bytes (more communication.chunks, a larger packet.mtu_bytes, the TCP "
                      "transport, or the analytical or flow engine)",
                      what, layer, largest, scenario.packet.mtu_bytes, limit, limit)};
    }
  }
  return std::nullopt;
}

}  // namespace hfsim
