#include "sim/analytical/astra-sim-pricing.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>
#include <tuple>

#include "sim/analytical/astra-sim-phase.h"
#include "topologies/dimension-kinds.h"

namespace hfsim {

uint32_t LinksPerNpu(const Dimension& dimension) {
  return MakeShape(dimension)->NpuDegree();
}

double AstraLinkBpns(const Dimension& dimension) {
  return AstraLinkBpns(dimension, dimension.bandwidth_Bpns);
}

double AstraLinkBpns(const Dimension& dimension, double bandwidth_Bpns) {
  // The import stored GB/s per link x links x 2^30 / 10^9 (bytes/ns = GB/s of 10^9 B); undo
  // it, and snap to the millionth of a GB/s a YAML file would hold, since the round trip may
  // be an ulp off and ASTRA-sim truncates times that an ulp can tip.
  double link_GiBps = bandwidth_Bpns / LinksPerNpu(dimension) / 1.073741824;
  const double snapped = std::round(link_GiBps * 1e6) / 1e6;
  if (std::abs(snapped - link_GiBps) <= 1e-9 * link_GiBps) link_GiBps = snapped;
  return link_GiBps * static_cast<double>(1 << 30) / 1000000000.0;
}

AstraChunks AstraChunking(CollectiveKind kind, uint64_t size, uint32_t splits,
                          uint64_t total_npus) {
  uint64_t chunk = size / splits;
  // ASTRA-sim gives every chunk at least one byte per NPU (all-gathers excepted) and then
  // prices `splits` such chunks, more bytes than asked for.
  if (kind != CollectiveKind::kAllGather && total_npus > chunk) {
    chunk = total_npus;
    size = splits * total_npus;
  }
  // ASTRA-sim would loop for ever on an empty chunk; price the whole size as one instead.
  if (chunk == 0) return {1, size};
  // A last partial chunk is priced as a whole one.
  return {(size + chunk - 1) / chunk, chunk};
}

double StageTrafficCoefficient(CollectiveKind kind, uint32_t npus) {
  // Each NPU sends all but its own 1/n of the buffer once per reduce-scatter, all-gather or
  // all-to-all half; an all-reduce is two halves.
  const double once = static_cast<double>(npus - 1) / npus;
  return kind == CollectiveKind::kAllReduce ? 2.0 * once : once;
}

double AstraPipelineNs(const std::vector<uint32_t>& stage_dimension,
                       const std::vector<double>& stage_ns, uint64_t chunks, uint32_t active) {
  if (stage_ns.empty()) return 0.0;
  const uint32_t dimension_count =
      *std::max_element(stage_dimension.begin(), stage_dimension.end()) + 1;
  // Chunk-stages waiting for each dimension (first come, first served) and running on it.
  std::vector<std::deque<std::pair<uint64_t, uint32_t>>> waiting(dimension_count);
  std::vector<uint32_t> running(dimension_count, 0);
  using Event = std::tuple<double, uint64_t, uint32_t>;  // end time, chunk, stage
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  auto start = [&](uint32_t d, double now) {
    while (running[d] < active && !waiting[d].empty()) {
      const auto [chunk, stage] = waiting[d].front();
      waiting[d].pop_front();
      ++running[d];
      events.emplace(now + stage_ns[stage], chunk, stage);
    }
  };
  for (uint64_t chunk = 0; chunk < chunks; ++chunk)
    waiting[stage_dimension[0]].emplace_back(chunk, 0);
  start(stage_dimension[0], 0.0);
  double finish = 0.0;
  while (!events.empty()) {
    const auto [now, chunk, stage] = events.top();
    events.pop();
    finish = std::max(finish, now);
    const uint32_t d = stage_dimension[stage];
    --running[d];
    if (stage + 1 < stage_ns.size())
      waiting[stage_dimension[stage + 1]].emplace_back(chunk, stage + 1);
    start(d, now);
    if (stage + 1 < stage_ns.size()) start(stage_dimension[stage + 1], now);
  }
  return finish;
}

CollectivePrice AstraSimPrice(const Topology& topology, const CommunicationSpec& communication,
                              CollectiveKind kind, uint64_t size_bytes,
                              const std::vector<uint32_t>& dimensions) {
  const uint32_t dimension_count = topology.DimensionCount();
  CollectivePrice price;
  price.dimension_busy_ns.assign(dimension_count, 0.0);
  price.dimension_traffic_bytes.assign(dimension_count, 0.0);
  // hfsim's all-gather size is its output; ASTRA-sim's is each NPU's input.
  uint64_t group = 1;
  for (uint32_t d : dimensions) group *= topology.Dim(d).size;
  const uint64_t astra_size = kind == CollectiveKind::kAllGather ? size_bytes / group : size_bytes;
  const AstraChunks chunks =
      AstraChunking(kind, astra_size, communication.chunks, topology.NpuCount());
  const double size = static_cast<double>(size_bytes);
  std::vector<uint32_t> stage_dimension;
  std::vector<double> stage_ns;
  uint64_t data = chunks.bytes;
  for (const CollectiveStage& stage : ComposeStages(kind, communication.scheme, dimensions,
                                                    topology, communication.AlgorithmsFor(kind))) {
    const Dimension& dim = topology.Dim(stage.dimension);
    AstraPhase phase;
    phase.kind = stage.kind;
    phase.algorithm = stage.algorithm;
    phase.topology = dim.kind;
    phase.npus = dim.size;
    phase.latency_ns = dim.latency_ns;
    phase.link_Bpns = AstraLinkBpns(dim);
    // ASTRA-sim holds the endpoint delay in an int.
    phase.endpoint_delay = static_cast<uint64_t>(communication.endpoint_delay_ns);
    phase.local_mem_GBps = communication.reduction_Bpns;
    phase.data_bytes = data;
    const double ns = AstraPhaseNs(phase);
    data = AstraPhaseOutputBytes(stage.kind, dim.size, data);
    stage_dimension.push_back(stage.dimension);
    stage_ns.push_back(ns);
    price.dimension_busy_ns[stage.dimension] += ns * static_cast<double>(chunks.count);
    price.dimension_traffic_bytes[stage.dimension] +=
        StageTrafficCoefficient(stage.kind, dim.size) * stage.buffer_fraction * size;
  }
  price.time_ns = AstraPipelineNs(stage_dimension, stage_ns, chunks.count,
                                  communication.active_chunks_per_dimension);
  return price;
}

}  // namespace hfsim
