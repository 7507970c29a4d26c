// A collective across several dimensions, split into per-dimension stages.
//
// Hierarchical all-reduce over dimensions [d0, d1, ..., dk] (ASTRA-sim's localBWAware):
//   reduce-scatter on d0 (buffer S), on d1 (S/n0), ..., on d(k-1);
//   all-reduce on dk (buffer S/(n0*...*n(k-1)));
//   all-gather on d(k-1), ..., d0 (buffers growing back to S).
// Reduce-scatter: reduce-scatter on d0..dk with shrinking buffers. All-gather: the mirror, from dk
// down to d0 with growing buffers. All-to-all: an all-to-all of the whole buffer on every
// dimension. The naive scheme changes only the all-reduce: the full all-reduce of S on every
// dimension in turn (d0, then d1, ...), which moves more data but needs no sharding.
// Reduce-scatter and all-gather have no naive form and are sharded as above under either scheme.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/name-table.h"
#include "models/collective.h"
#include "topologies/topology.h"

namespace hfsim {

enum class MultiDimScheme { kHierarchical, kNaive };
/// Scenario spellings (communication.scheme).
inline constexpr NameTable<MultiDimScheme, 2> kMultiDimSchemeNames = {{
    {MultiDimScheme::kHierarchical, "hierarchical"},
    {MultiDimScheme::kNaive, "naive"},
}};
inline std::string_view ToString(MultiDimScheme scheme) {
  return NameIn(kMultiDimSchemeNames, scheme);
}

struct CollectiveStage {
  uint32_t dimension = 0;
  CollectiveKind kind = CollectiveKind::kAllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kRing;
  /// This stage's buffer (in the size convention of collective.h) as a fraction of the
  /// multi-dimensional collective's buffer S.
  double buffer_fraction = 1.0;
};

/// Stages of `kind` over `dimensions` (in the order given) of `topology`, with
/// `algorithms[d]` the algorithm used on topology dimension d (indexed by dimension, not by
/// position in `dimensions`). Stages are in execution order.
std::vector<CollectiveStage> ComposeStages(CollectiveKind kind, MultiDimScheme scheme,
                                           const std::vector<uint32_t>& dimensions,
                                           const Topology& topology,
                                           const std::vector<CollectiveAlgorithm>& algorithms);

}  // namespace hfsim
