// The collective operations a workload can ask the fabric for. The algorithms that carry them
// out live in models/ (models/collective.h); the workload only says what it needs.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "base/name-table.h"

namespace hfsim {

/// Size convention for every collective: `size_bytes` is the size of the whole (unsharded)
/// per-NPU buffer. Reduce-scatter takes S in and leaves S/n on each NPU; all-gather starts from
/// S/n on each NPU and leaves S everywhere; all-reduce keeps S; all-to-all sends S/n to each of
/// the n-1 peers (and keeps S/n). An all-gather of shards S' is S = n*S' here, not S'
/// (docs/scenario.md §5.1).
enum class CollectiveKind : uint8_t { kAllReduce, kReduceScatter, kAllGather, kAllToAll };

inline constexpr std::array<CollectiveKind, 4> kAllCollectiveKinds = {
    CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter, CollectiveKind::kAllGather,
    CollectiveKind::kAllToAll};

/// Scenario spellings.
inline constexpr NameTable<CollectiveKind, 4> kCollectiveKindNames = {{
    {CollectiveKind::kAllReduce, "all_reduce"},
    {CollectiveKind::kReduceScatter, "reduce_scatter"},
    {CollectiveKind::kAllGather, "all_gather"},
    {CollectiveKind::kAllToAll, "all_to_all"},
}};
inline std::string_view ToString(CollectiveKind kind) { return NameIn(kCollectiveKindNames, kind); }
inline std::optional<CollectiveKind> ParseCollectiveKind(std::string_view text) {
  return ParseIn(kCollectiveKindNames, text);
}

}  // namespace hfsim
