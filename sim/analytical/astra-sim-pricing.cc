#include "sim/analytical/astra-sim-pricing.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>
#include <tuple>

#include "models/schedule-profile.h"

namespace hfsim {

namespace {

// Hops between two NPUs `distance` apart (along the group's order) in the dimension.
double Hops(const Dimension& dim, uint32_t distance) {
  switch (dim.kind) {
    case DimensionKind::kRing: return std::min(distance, dim.size - distance);  // shorter way
    case DimensionKind::kFullyConnected: return 1.0;
    case DimensionKind::kSwitch: return 2.0;  // up to the switch and down
  }
  return 1.0;
}

struct StepCost {
  double hops = 0.0;           // longest route of the step's messages
  double message_bytes = 0.0;  // bytes of each message
  double reduced_bytes = 0.0;  // bytes one NPU reduces in the step (0: no reduction)
};

// The steps of one single-dimension collective on a buffer of s bytes (docs/astra-sim.md §3).
std::vector<StepCost> Steps(CollectiveKind kind, CollectiveAlgorithm algorithm,
                            const Dimension& dim, double s) {
  const uint32_t n = dim.size;
  std::vector<StepCost> steps;
  const bool reduce_phase = kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter;
  const bool gather_phase = kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kAllGather;
  switch (algorithm) {
    case CollectiveAlgorithm::kRing: {
      const double m = s / n;
      if (kind == CollectiveKind::kAllToAll) {
        for (uint32_t k = 1; k < n; ++k) steps.push_back({Hops(dim, 1), m, 0.0});
        break;
      }
      if (reduce_phase) for (uint32_t k = 1; k < n; ++k) steps.push_back({Hops(dim, 1), m, m});
      if (gather_phase) for (uint32_t k = 1; k < n; ++k) steps.push_back({Hops(dim, 1), m, 0.0});
      break;
    }
    case CollectiveAlgorithm::kDirect: {
      const double m = s / n;
      const double hops = Hops(dim, n / 2);  // the farthest peer
      if (kind == CollectiveKind::kAllToAll) {
        steps.push_back({hops, m, 0.0});
        break;
      }
      if (reduce_phase) steps.push_back({hops, m, (n - 1) * m});
      if (gather_phase) steps.push_back({hops, m, 0.0});
      break;
    }
    case CollectiveAlgorithm::kHalvingDoubling: {
      // Recursive halving with partners at distance 1, 2, ..., n/2 and messages s/2, s/4, ...,
      // s/n; recursive doubling in the mirror order.
      std::vector<StepCost> halving;
      double m = s / 2;
      for (uint32_t distance = 1; distance < n; distance *= 2, m /= 2) {
        halving.push_back({Hops(dim, distance), m, m});
      }
      if (reduce_phase) steps = halving;
      if (gather_phase) {
        for (auto it = halving.rbegin(); it != halving.rend(); ++it) {
          steps.push_back({it->hops, it->message_bytes, 0.0});
        }
      }
      break;
    }
    case CollectiveAlgorithm::kDoubleBinaryTree:
    case CollectiveAlgorithm::kInNetwork:
      break;  // refused by the loader under astra_sim pricing
  }
  return steps;
}

}  // namespace

uint32_t LinksPerNpu(const Dimension& dimension) {
  switch (dimension.kind) {
    case DimensionKind::kRing: return dimension.size == 2 ? 1 : 2;
    case DimensionKind::kFullyConnected: return dimension.size - 1;
    case DimensionKind::kSwitch: return 1;
  }
  return 1;
}

double AstraStageNs(const CollectiveStage& stage, const Dimension& dimension, double chunk_bytes,
                    const CommunicationSpec& communication) {
  const double link_Bpns = dimension.bandwidth_Bpns / LinksPerNpu(dimension);
  double total = 0.0;
  for (const StepCost& step : Steps(stage.kind, stage.algorithm, dimension, chunk_bytes)) {
    total += std::floor(step.hops * dimension.latency_ns + step.message_bytes / link_Bpns);
    total += communication.endpoint_delay_ns;
    if (step.reduced_bytes > 0.0 && communication.reduction_Bpns > 0.0) {
      total += std::floor(3.0 * step.reduced_bytes / communication.reduction_Bpns);
    }
  }
  return total;
}

double AstraPipelineNs(const std::vector<uint32_t>& stage_dimension,
                       const std::vector<double>& stage_ns, uint32_t chunks, uint32_t active) {
  if (stage_ns.empty()) return 0.0;
  const uint32_t dimension_count =
      *std::max_element(stage_dimension.begin(), stage_dimension.end()) + 1;
  // Chunk-stages waiting for each dimension (first come, first served) and running on it.
  std::vector<std::deque<std::pair<uint32_t, uint32_t>>> waiting(dimension_count);
  std::vector<uint32_t> running(dimension_count, 0);
  using Event = std::tuple<double, uint32_t, uint32_t>;  // end time, chunk, stage
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  auto start = [&](uint32_t d, double now) {
    while (running[d] < active && !waiting[d].empty()) {
      const auto [chunk, stage] = waiting[d].front();
      waiting[d].pop_front();
      ++running[d];
      events.emplace(now + stage_ns[stage], chunk, stage);
    }
  };
  for (uint32_t chunk = 0; chunk < chunks; ++chunk) waiting[stage_dimension[0]].emplace_back(chunk, 0);
  start(stage_dimension[0], 0.0);
  double finish = 0.0;
  while (!events.empty()) {
    const auto [now, chunk, stage] = events.top();
    events.pop();
    finish = std::max(finish, now);
    const uint32_t d = stage_dimension[stage];
    --running[d];
    if (stage + 1 < stage_ns.size()) waiting[stage_dimension[stage + 1]].emplace_back(chunk, stage + 1);
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
  const double size = static_cast<double>(size_bytes);
  const double chunks = communication.chunks;
  std::vector<uint32_t> stage_dimension;
  std::vector<double> stage_ns;
  for (const CollectiveStage& stage : ComposeStages(kind, communication.scheme, dimensions, topology,
                                                    communication.AlgorithmsFor(kind))) {
    const Dimension& dim = topology.Dim(stage.dimension);
    const double ns = AstraStageNs(stage, dim, stage.buffer_fraction * size / chunks, communication);
    stage_dimension.push_back(stage.dimension);
    stage_ns.push_back(ns);
    price.dimension_busy_ns[stage.dimension] += ns * chunks;
    const ScheduleProfile& profile = CachedProfile(stage.kind, stage.algorithm, dim.size, dim.kind);
    price.dimension_traffic_bytes[stage.dimension] +=
        profile.traffic_coefficient * stage.buffer_fraction * size;
  }
  price.time_ns = AstraPipelineNs(stage_dimension, stage_ns, communication.chunks,
                                  communication.active_chunks_per_dimension);
  return price;
}

}  // namespace hfsim
