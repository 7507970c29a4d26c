#include "models/collective.h"

#include <bit>
#include <stdexcept>

#include "topologies/dimension-kinds.h"

namespace hfsim {

std::optional<std::string> UnsupportedReason(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                             uint32_t peers) {
  const std::string algorithm_name(ToString(algorithm));
  const std::string kind_name(ToString(kind));
  const std::string count = std::to_string(peers);
  if (peers < 2) {
    return algorithm_name + " " + kind_name + " needs at least 2 peers, got " + count;
  }
  switch (algorithm) {
    case CollectiveAlgorithm::kRing:
    case CollectiveAlgorithm::kDirect:
      return std::nullopt;
    case CollectiveAlgorithm::kHalvingDoubling:
      if (kind == CollectiveKind::kAllToAll) {
        return algorithm_name + " cannot run " + kind_name + " (on " + count +
               " peers); it supports all_reduce, reduce_scatter and all_gather";
      }
      if (!std::has_single_bit(peers)) {
        return algorithm_name + " needs a power-of-two number of peers, got " + count + " for " +
               kind_name;
      }
      return std::nullopt;
    case CollectiveAlgorithm::kDoubleBinaryTree:
    case CollectiveAlgorithm::kInNetwork:
      if (kind != CollectiveKind::kAllReduce) {
        return algorithm_name + " cannot run " + kind_name + " (on " + count +
               " peers); it supports all_reduce only";
      }
      return std::nullopt;
  }
  return "unknown collective algorithm";
}

namespace {

// The traffic `algorithm` puts on a dimension for `kind` (its schedule's steps; in_network has
// none: it needs a switch that aggregates instead).
TrafficPattern PatternOf(CollectiveKind kind, CollectiveAlgorithm algorithm) {
  switch (algorithm) {
    case CollectiveAlgorithm::kRing:
      return kind == CollectiveKind::kAllToAll ? TrafficPattern::kShift
                                               : TrafficPattern::kNeighbours;
    case CollectiveAlgorithm::kDirect:
      return TrafficPattern::kAllPairs;
    case CollectiveAlgorithm::kHalvingDoubling:
      return TrafficPattern::kXorPartner;
    case CollectiveAlgorithm::kDoubleBinaryTree:
    case CollectiveAlgorithm::kInNetwork:
      break;
  }
  return TrafficPattern::kAnyTransfers;
}

std::string_view Describe(TrafficPattern pattern) {
  switch (pattern) {
    case TrafficPattern::kShift:
      return "every rank sending to the rank k places on, for each k";
    case TrafficPattern::kNeighbours:
      return "exchanges with both ring neighbours";
    case TrafficPattern::kAllPairs:
      return "every rank sending to every other at once";
    case TrafficPattern::kXorPartner:
      return "exchanges with partners a power of two apart";
    case TrafficPattern::kAnyTransfers:
      return "transfers along trees";
  }
  return "?";
}

}  // namespace

// Whether the dimension's kind carries what `algorithm` needs for `kind`.
static bool Runs(CollectiveKind kind, CollectiveAlgorithm algorithm,
                 const DimensionKindEntry& entry) {
  if (algorithm == CollectiveAlgorithm::kInNetwork) return entry.aggregating_switch;
  return entry.Carries(PatternOf(kind, algorithm));
}

std::optional<std::string> KindRefusal(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                       DimensionKind dimension) {
  const DimensionKindEntry& entry = KindEntry(dimension);
  if (Runs(kind, algorithm, entry)) return std::nullopt;
  const std::string dimension_name(ToString(dimension));
  const std::string reason =
      algorithm == CollectiveAlgorithm::kInNetwork
          ? "a " + dimension_name + " dimension has no switch to aggregate in"
          : "its " + std::string(ToString(kind)) + " makes " +
                std::string(Describe(PatternOf(kind, algorithm))) + ", which a " +
                dimension_name + " dimension does not price";
  return reason + "; accepted on " + dimension_name + " for " + std::string(ToString(kind)) +
         ": " + AcceptedAlgorithms(kind, dimension);
}

std::string AcceptedAlgorithms(CollectiveKind kind, DimensionKind dimension) {
  const DimensionKindEntry& entry = KindEntry(dimension);
  std::string list;
  for (const auto& [algorithm, name] : kCollectiveAlgorithmNames) {
    // Left out: algorithms that never run this collective, and those the kind cannot carry.
    if (UnsupportedReason(kind, algorithm, 2) || !Runs(kind, algorithm, entry)) continue;
    if (!list.empty()) list += ", ";
    list += '"';
    list += name;
    list += '"';
  }
  return list;
}

CollectiveAlgorithm DefaultAlgorithm(CollectiveKind kind, DimensionKind dimension) {
  const DimensionKindEntry& entry = KindEntry(dimension);
  const std::optional<CollectiveAlgorithm> preferred =
      ParseCollectiveAlgorithm(entry.default_algorithm);
  if (!preferred) throw std::logic_error("DefaultAlgorithm: a kind's default is not an algorithm");
  if (Runs(kind, *preferred, entry)) return *preferred;
  for (const auto& [algorithm, name] : kCollectiveAlgorithmNames) {
    if (!UnsupportedReason(kind, algorithm, 2) && Runs(kind, algorithm, entry)) return algorithm;
  }
  throw std::logic_error("DefaultAlgorithm: no algorithm runs this collective on the kind");
}

}  // namespace hfsim
