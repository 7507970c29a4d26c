#include "models/collective.h"

#include <bit>

namespace hfsim {

std::string_view ToString(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "all_reduce";
    case CollectiveKind::kReduceScatter:
      return "reduce_scatter";
    case CollectiveKind::kAllGather:
      return "all_gather";
    case CollectiveKind::kAllToAll:
      return "all_to_all";
  }
  return "?";
}

std::optional<CollectiveKind> ParseCollectiveKind(std::string_view text) {
  if (text == "all_reduce") return CollectiveKind::kAllReduce;
  if (text == "reduce_scatter") return CollectiveKind::kReduceScatter;
  if (text == "all_gather") return CollectiveKind::kAllGather;
  if (text == "all_to_all") return CollectiveKind::kAllToAll;
  return std::nullopt;
}

std::string_view ToString(CollectiveAlgorithm algorithm) {
  switch (algorithm) {
    case CollectiveAlgorithm::kRing:
      return "ring";
    case CollectiveAlgorithm::kDirect:
      return "direct";
    case CollectiveAlgorithm::kHalvingDoubling:
      return "halving_doubling";
    case CollectiveAlgorithm::kDoubleBinaryTree:
      return "double_binary_tree";
    case CollectiveAlgorithm::kInNetwork:
      return "in_network";
  }
  return "?";
}

std::optional<CollectiveAlgorithm> ParseCollectiveAlgorithm(std::string_view text) {
  if (text == "ring") return CollectiveAlgorithm::kRing;
  if (text == "direct") return CollectiveAlgorithm::kDirect;
  if (text == "halving_doubling") return CollectiveAlgorithm::kHalvingDoubling;
  if (text == "double_binary_tree") return CollectiveAlgorithm::kDoubleBinaryTree;
  if (text == "in_network") return CollectiveAlgorithm::kInNetwork;
  return std::nullopt;
}

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

}  // namespace hfsim
