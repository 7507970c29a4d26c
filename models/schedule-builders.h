// The per-algorithm schedule builders behind BuildSchedule (schedule.h), one file each.
//
// Internal to models/ (and its tests): everyone else calls BuildSchedule and ShardBlocks, which
// check the (kind, algorithm, peers) combination first. Builders assume it is supported.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/collective.h"
#include "models/schedule.h"

namespace hfsim {

Schedule BuildRingSchedule(CollectiveKind kind, uint32_t peers);
Schedule BuildDirectSchedule(CollectiveKind kind, uint32_t peers);
Schedule BuildHalvingDoublingSchedule(CollectiveKind kind, uint32_t peers);
Schedule BuildDoubleBinaryTreeSchedule(uint32_t peers);

/// `value` with its low `bits` bits in reverse order (BitReverse(1, 3) = 4, (3, 3) = 6).
uint32_t BitReverse(uint32_t value, uint32_t bits);

/// A rooted tree over ranks 0..n-1 in which every rank has at most two children.
struct BinaryTree {
  uint32_t root = 0;
  std::vector<int32_t> parent;                  ///< -1 for the root
  std::vector<std::vector<uint32_t>> children;  ///< ascending rank order
};

/// The two trees of the double-binary-tree all-reduce (shapes documented in tree-schedule.cc).
std::array<BinaryTree, 2> DoubleBinaryTrees(uint32_t peers);

}  // namespace hfsim
