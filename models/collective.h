// Collective operations and the per-dimension algorithms that implement them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "topologies/dimension.h"
#include "workloads/collective-kind.h"

namespace hfsim {

// CollectiveKind and its size convention: workloads/collective-kind.h.

enum class CollectiveAlgorithm {
  kRing,              ///< bidirectional ring: half the data each way round the logical ring
  kDirect,            ///< every peer to every peer in one step per phase
  kHalvingDoubling,   ///< recursive halving (reduce) / doubling (gather); power-of-two sizes
  kDoubleBinaryTree,  ///< two complementary binary trees, half the data each; all-reduce only
  /// The dimension's switch sums the workers' packets (SwitchML); all-reduce on a Switch
  /// dimension only. No peer-to-peer schedule: models/in-network-allreduce.h prices it from the
  /// aggregation switch spec and the packet engine runs the switch and worker state machines.
  kInNetwork,
};

/// Scenario spellings, in the order messages list them.
inline constexpr NameTable<CollectiveAlgorithm, 5> kCollectiveAlgorithmNames = {{
    {CollectiveAlgorithm::kRing, "ring"},
    {CollectiveAlgorithm::kDirect, "direct"},
    {CollectiveAlgorithm::kHalvingDoubling, "halving_doubling"},
    {CollectiveAlgorithm::kDoubleBinaryTree, "double_binary_tree"},
    {CollectiveAlgorithm::kInNetwork, "in_network"},
}};
inline std::string_view ToString(CollectiveAlgorithm algorithm) {
  return NameIn(kCollectiveAlgorithmNames, algorithm);
}
inline std::optional<CollectiveAlgorithm> ParseCollectiveAlgorithm(std::string_view text) {
  return ParseIn(kCollectiveAlgorithmNames, text);
}

/// Why `algorithm` cannot run `kind` on `peers` NPUs (e.g. halving-doubling on 6 peers), or
/// nullopt when it can. The scenario loader turns this into an error naming the JSON path.
std::optional<std::string> UnsupportedReason(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                             uint32_t peers);

/// Why `algorithm` cannot run `kind` on a dimension of kind `dimension`: the traffic it makes
/// (ring: neighbour exchanges, or shifts for all_to_all; direct: all pairs; halving_doubling:
/// XOR partners; double_binary_tree: trees, walked) is not one the kind prices
/// (DimensionKindEntry::patterns), or in_network finds no switch that aggregates. nullopt when
/// it can.
std::optional<std::string> KindRefusal(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                       DimensionKind dimension);
/// The algorithms that can run `kind` on `dimension`, quoted and comma-separated for messages
/// ("\"ring\", \"direct\"").
std::string AcceptedAlgorithms(CollectiveKind kind, DimensionKind dimension);
/// The algorithm a dimension runs `kind` with unless the scenario names one: its kind's default
/// (DimensionKindEntry::default_algorithm) where that can run `kind`, else the first that can.
CollectiveAlgorithm DefaultAlgorithm(CollectiveKind kind, DimensionKind dimension);

}  // namespace hfsim
