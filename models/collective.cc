#include "models/collective.h"

#include <bit>

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

}  // namespace hfsim
