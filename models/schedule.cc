#include "models/schedule.h"

#include <bit>
#include <stdexcept>
#include <string>

#include "models/schedule-builders.h"

namespace hfsim {

Schedule BuildSchedule(CollectiveKind kind, CollectiveAlgorithm algorithm, uint32_t peers) {
  if (auto reason = UnsupportedReason(kind, algorithm, peers)) {
    throw std::invalid_argument("BuildSchedule: " + *reason);
  }
  switch (algorithm) {
    case CollectiveAlgorithm::kRing:
      return BuildRingSchedule(kind, peers);
    case CollectiveAlgorithm::kDirect:
      return BuildDirectSchedule(kind, peers);
    case CollectiveAlgorithm::kHalvingDoubling:
      return BuildHalvingDoublingSchedule(kind, peers);
    case CollectiveAlgorithm::kDoubleBinaryTree:
      return BuildDoubleBinaryTreeSchedule(peers);
    case CollectiveAlgorithm::kInNetwork:
      break;  // the switch reduces: no peer-to-peer schedule (models/in-network-allreduce.h)
  }
  throw std::invalid_argument("BuildSchedule: " + std::string(ToString(algorithm)) +
                              " has no peer-to-peer schedule");
}

std::vector<uint32_t> ShardBlocks(CollectiveAlgorithm algorithm, uint32_t peers, uint32_t rank) {
  if (rank >= peers) throw std::invalid_argument("ShardBlocks: rank out of range");
  switch (algorithm) {
    case CollectiveAlgorithm::kRing:
      return {rank, peers + rank};
    case CollectiveAlgorithm::kDirect:
      return {rank};
    case CollectiveAlgorithm::kHalvingDoubling:
      if (!std::has_single_bit(peers)) {
        throw std::invalid_argument("ShardBlocks: halving_doubling needs a power-of-two group");
      }
      return {BitReverse(rank, static_cast<uint32_t>(std::countr_zero(peers)))};
    case CollectiveAlgorithm::kDoubleBinaryTree:
    case CollectiveAlgorithm::kInNetwork:
      break;
  }
  throw std::invalid_argument("ShardBlocks: " + std::string(ToString(algorithm)) +
                              " runs all_reduce only (no shards)");
}

TransferBlocks LargestTransfer(CollectiveKind kind, CollectiveAlgorithm algorithm,
                               uint32_t peers) {
  switch (algorithm) {
    case CollectiveAlgorithm::kRing:  // one block a step each way round (ring-schedule.cc)
      return {kind == CollectiveKind::kAllToAll ? peers : 2 * peers, 1};
    case CollectiveAlgorithm::kDirect:  // one block to each peer (direct-schedule.cc)
      return {peers, 1};
    case CollectiveAlgorithm::kHalvingDoubling:
      // Half the buffer in the first reduce-scatter step and the last all-gather step
      // (halving-doubling-schedule.cc).
      return {peers, peers / 2};
    case CollectiveAlgorithm::kDoubleBinaryTree:  // one half on each tree (tree-schedule.cc)
      return {2, 1};
    case CollectiveAlgorithm::kInNetwork:
      break;
  }
  return {0, 0};
}

uint64_t BlockBytes(uint64_t buffer_bytes, uint32_t block_count, uint32_t block) {
  const uint64_t base = buffer_bytes / block_count;
  return base + (block < buffer_bytes % block_count ? 1 : 0);
}

uint64_t BlockRunBytes(uint64_t buffer_bytes, uint32_t block_count, uint32_t first,
                       uint32_t count) {
  const uint64_t base = buffer_bytes / block_count;
  const uint64_t larger = buffer_bytes % block_count;  // blocks [0, larger) carry one more byte
  const uint64_t end = static_cast<uint64_t>(first) + count;
  const uint64_t larger_in_run = end <= larger ? count : (first < larger ? larger - first : 0);
  return base * count + larger_in_run;
}

}  // namespace hfsim
