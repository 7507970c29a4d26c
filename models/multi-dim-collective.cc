#include "models/multi-dim-collective.h"

#include <stdexcept>
#include <string>

namespace hfsim {
namespace {

CollectiveStage Stage(uint32_t dimension, CollectiveKind kind,
                      const std::vector<CollectiveAlgorithm>& algorithms, double fraction) {
  return CollectiveStage{dimension, kind, algorithms[dimension], fraction};
}

}  // namespace

std::vector<CollectiveStage> ComposeStages(CollectiveKind kind, MultiDimScheme scheme,
                                           const std::vector<uint32_t>& dimensions,
                                           const Topology& topology,
                                           const std::vector<CollectiveAlgorithm>& algorithms) {
  if (dimensions.empty()) throw std::invalid_argument("ComposeStages: no dimensions");
  if (algorithms.size() < topology.DimensionCount()) {
    throw std::invalid_argument("ComposeStages: " + std::to_string(algorithms.size()) +
                                " algorithms for " + std::to_string(topology.DimensionCount()) +
                                " dimensions");
  }
  for (uint32_t d : dimensions) {
    if (d >= topology.DimensionCount()) {
      throw std::invalid_argument("ComposeStages: no dimension " + std::to_string(d));
    }
  }

  std::vector<CollectiveStage> stages;
  stages.reserve(2 * dimensions.size());  // the most any kind needs (all-reduce: 2n - 1)
  // All-to-all never shards, and the naive all-reduce does not either: the whole buffer on every
  // dimension in turn. Reduce-scatter and all-gather have no naive form (a reduce-scatter of the
  // whole buffer on each dimension would not compute the collective), so they always shard.
  const bool naive_all_reduce =
      scheme == MultiDimScheme::kNaive && kind == CollectiveKind::kAllReduce;
  if (naive_all_reduce || kind == CollectiveKind::kAllToAll) {
    for (uint32_t d : dimensions) stages.push_back(Stage(d, kind, algorithms, 1.0));
    return stages;
  }

  // fraction[i]: the buffer entering position i of a reduce-scatter chain, S / (n_0 ... n_{i-1}).
  const size_t count = dimensions.size();
  std::vector<double> fraction(count, 1.0);
  for (size_t i = 1; i < count; ++i) {
    fraction[i] = fraction[i - 1] / topology.Dim(dimensions[i - 1]).size;
  }
  switch (kind) {
    case CollectiveKind::kAllReduce:
      for (size_t i = 0; i + 1 < count; ++i) {
        stages.push_back(
            Stage(dimensions[i], CollectiveKind::kReduceScatter, algorithms, fraction[i]));
      }
      stages.push_back(Stage(dimensions[count - 1], CollectiveKind::kAllReduce, algorithms,
                             fraction[count - 1]));
      for (size_t i = count - 1; i-- > 0;) {
        stages.push_back(Stage(dimensions[i], CollectiveKind::kAllGather, algorithms, fraction[i]));
      }
      break;
    case CollectiveKind::kReduceScatter:
      for (size_t i = 0; i < count; ++i) {
        stages.push_back(
            Stage(dimensions[i], CollectiveKind::kReduceScatter, algorithms, fraction[i]));
      }
      break;
    case CollectiveKind::kAllGather:
      // In collective.h's convention an all-gather's buffer is its output, which is the input of
      // the reduce-scatter it mirrors.
      for (size_t i = count; i-- > 0;) {
        stages.push_back(Stage(dimensions[i], CollectiveKind::kAllGather, algorithms, fraction[i]));
      }
      break;
    case CollectiveKind::kAllToAll:
      break;  // handled above
  }
  return stages;
}

}  // namespace hfsim
