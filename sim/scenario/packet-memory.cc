#include "sim/scenario/packet-memory.h"

#include <cstdint>

#include <fmt/format.h>

#include "models/multi-dim-collective.h"
#include "models/schedule-profile.h"
#include "sim/analytical/analytical-engine.h"
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

// Point-to-point messages of `count` collectives of `kind` over `dimensions`, summed over every
// NPU (each runs its group's schedule) and every chunk.
double Messages(const Scenario& scenario, const Topology& topology, CollectiveKind kind,
                const std::vector<uint32_t>& dimensions, double count) {
  const CommunicationSpec& comm = scenario.communication;
  double per_npu = 0.0;
  for (const CollectiveStage& stage :
       ComposeStages(kind, comm.scheme, dimensions, topology, comm.AlgorithmsFor(kind))) {
    if (stage.algorithm == CollectiveAlgorithm::kInNetwork) continue;
    const Dimension& dim = topology.Dim(stage.dimension);
    per_npu += CachedProfile(stage.kind, stage.algorithm, dim.size, dim.kind).messages;
  }
  return per_npu * static_cast<double>(topology.NpuCount()) * comm.chunks * count;
}

}  // namespace

double PacketMemoryEstimate::TotalBytes() const { return fabric_bytes + message_bytes; }

PacketMemoryEstimate EstimatePacketMemory(const Scenario& scenario) {
  PacketMemoryEstimate estimate;
  const FabricGraphSize size = ComputeFabricGraphSize(scenario.dimensions);
  const double per_vertex = scenario.packet.transport == TransportKind::kTcp ? kBytesPerVertexTcp
                                                                             : kBytesPerVertexRdma;
  estimate.fabric_bytes = kBaseBytes + per_vertex * static_cast<double>(size.vertex_count) +
                          kBytesPerLink * static_cast<double>(size.link_count);
  if (scenario.workload_kind != WorkloadKind::kTraining &&
      scenario.workload_kind != WorkloadKind::kCollective) {
    return estimate;
  }
  const Topology topology(scenario.dimensions);
  double messages = 0.0;
  if (scenario.workload_kind == WorkloadKind::kCollective) {
    const CollectiveWorkload& c = scenario.collective;
    messages = Messages(scenario, topology, c.kind, c.dimensions, 1.0);
  } else {
    // The training loop's collectives, each with how often an iteration runs it.
    Scenario analytical = scenario;
    analytical.engine = EngineKind::kAnalytical;
    for (const CollectiveReport& c : AnalyticalEngine().Run(analytical).collectives) {
      messages += Messages(scenario, topology, c.kind, c.dimensions, c.occurrences);
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
