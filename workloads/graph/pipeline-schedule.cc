#include "workloads/graph/pipeline-schedule.h"

#include <algorithm>

#include "workloads/graph/pipeline-split.h"

namespace hfsim {

uint64_t WarmupSteps(const PipelineLayout& layout, uint32_t stage, bool combined) {
  const uint64_t p = layout.pipeline, m = layout.micro_batches, v = layout.virtual_stages;
  const uint64_t extra = combined ? 1 : 0;
  switch (layout.schedule) {
    case PipelineSchedule::kGPipe:
      return m;
    case PipelineSchedule::kOneFOneB:
      return p - stage - 1 + extra;
    case PipelineSchedule::kInterleaved:
      return (p - stage - 1) * 2 + (v - 1) * p + extra;
  }
  return 0;
}

std::vector<StageStep> StageSchedule(const PipelineLayout& layout, uint32_t stage,
                                     bool combined) {
  const uint32_t p = layout.pipeline, m = layout.micro_batches, v = layout.virtual_stages;
  std::vector<StageStep> steps;
  steps.reserve(2 * m * v);
  switch (layout.schedule) {
    case PipelineSchedule::kGPipe:
      for (uint32_t j = 0; j < m; ++j) steps.push_back({true, j, 0, false});
      for (uint32_t j = 0; j < m; ++j) steps.push_back({false, j, 0, false});
      break;
    case PipelineSchedule::kOneFOneB: {
      const auto warmup =
          static_cast<uint32_t>(std::min<uint64_t>(WarmupSteps(layout, stage, combined), m));
      for (uint32_t j = 0; j < warmup; ++j) steps.push_back({true, j, 0, false});
      for (uint32_t i = 0; i + warmup < m; ++i) {
        steps.push_back({true, warmup + i, 0, combined});
        steps.push_back({false, i, 0, false});
      }
      for (uint32_t j = m - warmup; j < m; ++j) steps.push_back({false, j, 0, false});
      break;
    }
    case PipelineSchedule::kInterleaved: {
      // Virtual step k of the m x v this stage runs in each direction.
      const uint32_t total = m * v;
      auto chunk_of = [&](uint32_t k, bool forward) {
        const uint32_t chunk = k % (p * v) / p;
        return forward ? chunk : v - 1 - chunk;
      };
      auto micro_of = [&](uint32_t k) { return k / (p * v) * p + k % p; };
      const auto warmup =
          static_cast<uint32_t>(std::min<uint64_t>(WarmupSteps(layout, stage, combined), total));
      for (uint32_t k = 0; k < warmup; ++k) {
        steps.push_back({true, micro_of(k), chunk_of(k, true), false});
      }
      for (uint32_t i = 0; i + warmup < total; ++i) {
        const uint32_t k = warmup + i;
        steps.push_back({true, micro_of(k), chunk_of(k, true), combined});
        steps.push_back({false, micro_of(i), chunk_of(i, false), false});
      }
      for (uint32_t k = total - warmup; k < total; ++k) {
        steps.push_back({false, micro_of(k), chunk_of(k, false), false});
      }
      break;
    }
  }
  return steps;
}
std::vector<uint32_t> BalancedChunks(const std::vector<double>& cost, uint32_t chunks) {
  const auto n = static_cast<uint32_t>(cost.size());
  double total = 0.0, largest = 0.0;
  for (const double c : cost) {
    total += c;
    largest = std::max(largest, c);
  }
  std::vector<double> counted;
  const std::vector<double>* weights = &cost;
  if (total <= 0.0) {  // nothing to balance: count layers
    counted.assign(n, 1.0);
    weights = &counted;
    total = n;
    largest = 1.0;
  }
  // Fills chunks left to right up to `limit` each, leaving a layer for every chunk still to
  // come; returns the boundaries, empty when the last chunk would exceed the limit.
  auto fill = [&](double limit) {
    std::vector<uint32_t> bounds{0};
    uint32_t i = 0;
    for (uint32_t k = 0; k + 1 < chunks; ++k) {
      double load = 0.0;
      const uint32_t last_allowed = n - (chunks - k - 1);  // exclusive
      while (i < last_allowed && (i == bounds.back() || load + (*weights)[i] <= limit)) {
        load += (*weights)[i++];
      }
      bounds.push_back(i);
    }
    double rest = 0.0;
    for (uint32_t j = i; j < n; ++j) rest += (*weights)[j];
    if (rest > limit) return std::vector<uint32_t>{};
    bounds.push_back(n);
    return bounds;
  };
  // The smallest feasible limit lies in [max(largest, total / chunks), total]: bisect it.
  double low = std::max(largest, total / chunks), high = total;
  std::vector<uint32_t> best = fill(high);
  for (int step = 0; step < 64 && high - low > 1e-12 * high; ++step) {
    const double mid = 0.5 * (low + high);
    std::vector<uint32_t> bounds = fill(mid);
    if (bounds.empty()) {
      low = mid;
    } else {
      high = mid;
      best = std::move(bounds);
    }
  }
  return best;
}

std::vector<uint32_t> PipelineChunks(const Model& model, const TrainingConfig& config,
                                     const PipelineLayout& layout) {
  const auto layers = static_cast<uint32_t>(model.layers.size());
  const uint32_t chunks = layout.pipeline * layout.virtual_stages;
  if (layers < chunks) return {};
  if (chunks == 1) return {0, layers};  // the loader's memory estimate, for every job
  if (layout.split.rule != PipelineSplitRule::kBalanced) {
    auto blocks = BlocksPerChunk(model, layout);
    if (std::holds_alternative<SplitProblem>(blocks)) return {};
    return SplitBoundaries(model, std::get<std::vector<uint32_t>>(blocks));
  }
  const TrainingIteration iteration = BuildTrainingIteration(model, config);
  std::vector<double> cost;
  cost.reserve(iteration.layers.size());
  for (const LayerWork& layer : iteration.layers) {
    cost.push_back(layer.forward_ns + layer.input_grad_ns + layer.weight_grad_ns);
  }
  return BalancedChunks(cost, chunks);
}

}  // namespace hfsim
