// Double-binary-tree all-reduce (as in NCCL): two binary trees over the n ranks, each carrying
// half the buffer (block_count 2: block 0 on tree 0, block 1 on tree 1).
//
// Tree 0 is NCCL's bit-pattern tree: rank 0 is the root with a single child; any other rank r
// with lowest set bit b has parent (r XOR b) | 2b, or r XOR b when that is >= n. Odd ranks are
// therefore leaves and even ranks interior. Tree 1 makes the roles complementary: for even n it
// mirrors tree 0 (rank r plays rank n-1-r), for odd n it shifts it (rank r plays rank r-1), so a
// rank interior in one tree is a leaf in the other where the counts allow it: tree 0's interior
// ranks are the even ones, tree 1's the odd ones, plus rank 0 again when n is odd (then rank 0 is
// interior in both). Example n = 8:
//
//   tree 0: 0 -> {4}, 4 -> {2, 6}, 2 -> {1, 3}, 6 -> {5, 7}
//   tree 1: 7 -> {3}, 3 -> {1, 5}, 1 -> {0, 2}, 5 -> {4, 6}
//
//              tree 0     tree 1
//   depth 0    0          7
//   depth 1    4          3
//   depth 2    2 6        1 5
//   depth 3    1 3 5 7    0 2 4 6      (leaves)
//
// Reduce phase: in step t every non-root rank of height t (leaves have height 0) sends its block
// to its parent, which adds it; a rank sends only after all its children, which have smaller
// heights. Broadcast phase: in step t every rank at depth t sends the reduced block to its
// children, which store it. Both trees advance in the same steps, so the schedule has
// 2 * max(height of the two trees) steps: 6 for n = 8 (reduce: leaves, then 2,6 -> 4 and
// 1,5 -> 3, then 4 -> 0 and 3 -> 7; broadcast the reverse). No pipelining: chunking the buffer
// into a pipeline is the caller's business.
#include <algorithm>
#include <stdexcept>

#include "models/schedule-builders.h"

namespace hfsim {
namespace {

BinaryTree BitPatternTree(uint32_t n) {
  BinaryTree tree;
  tree.root = 0;
  tree.parent.assign(n, -1);
  tree.children.assign(n, {});
  for (uint32_t r = 1; r < n; ++r) {
    const uint64_t bit = r & (~r + 1);  // lowest set bit
    uint64_t up = (r ^ bit) | (bit << 1);
    if (up >= n) up = r ^ bit;
    tree.parent[r] = static_cast<int32_t>(up);
    tree.children[up].push_back(r);  // r ascends, so children stay sorted
  }
  for (const auto& kids : tree.children) {
    if (kids.size() > 2) throw std::logic_error("BitPatternTree: a rank has more than 2 children");
  }
  return tree;
}

// The same shape with rank x relabelled as map(x).
template <typename Map>
BinaryTree Relabel(const BinaryTree& tree, Map map) {
  const uint32_t n = static_cast<uint32_t>(tree.parent.size());
  BinaryTree out;
  out.root = map(tree.root);
  out.parent.assign(n, -1);
  out.children.assign(n, {});
  for (uint32_t r = 0; r < n; ++r) {
    if (tree.parent[r] < 0) continue;
    const uint32_t child = map(r);
    const uint32_t parent = map(static_cast<uint32_t>(tree.parent[r]));
    out.parent[child] = static_cast<int32_t>(parent);
  }
  for (uint32_t r = 0; r < n; ++r) {
    if (out.parent[r] >= 0) out.children[out.parent[r]].push_back(r);
  }
  return out;
}

struct Levels {
  std::vector<uint32_t> depth;   // edges from the root
  std::vector<uint32_t> height;  // edges down to the deepest leaf below
};

Levels ComputeLevels(const BinaryTree& tree) {
  const uint32_t n = static_cast<uint32_t>(tree.parent.size());
  Levels levels{std::vector<uint32_t>(n, 0), std::vector<uint32_t>(n, 0)};
  std::vector<uint32_t> order{tree.root};  // breadth-first: parents before children
  for (size_t at = 0; at < order.size(); ++at) {
    for (uint32_t child : tree.children[order[at]]) {
      levels.depth[child] = levels.depth[order[at]] + 1;
      order.push_back(child);
    }
  }
  if (order.size() != n) throw std::logic_error("DoubleBinaryTrees: a tree misses ranks");
  for (size_t at = order.size(); at-- > 0;) {
    const uint32_t r = order[at];
    for (uint32_t child : tree.children[r]) {
      levels.height[r] = std::max(levels.height[r], levels.height[child] + 1);
    }
  }
  return levels;
}

}  // namespace

std::array<BinaryTree, 2> DoubleBinaryTrees(uint32_t peers) {
  BinaryTree first = BitPatternTree(peers);
  BinaryTree second = peers % 2 == 0
                          ? Relabel(first, [peers](uint32_t r) { return peers - 1 - r; })
                          : Relabel(first, [peers](uint32_t r) { return (r + 1) % peers; });
  return {std::move(first), std::move(second)};
}

Schedule BuildDoubleBinaryTreeSchedule(uint32_t peers) {
  Schedule schedule;
  schedule.kind = CollectiveKind::kAllReduce;
  schedule.algorithm = CollectiveAlgorithm::kDoubleBinaryTree;
  schedule.peers = peers;
  schedule.block_count = 2;

  const std::array<BinaryTree, 2> trees = DoubleBinaryTrees(peers);
  const std::array<Levels, 2> levels{ComputeLevels(trees[0]), ComputeLevels(trees[1])};
  const uint32_t height =
      std::max(levels[0].height[trees[0].root], levels[1].height[trees[1].root]);

  for (uint32_t t = 0; t < height; ++t) {
    Step step;
    for (uint32_t k = 0; k < 2; ++k) {
      for (uint32_t r = 0; r < peers; ++r) {
        if (trees[k].parent[r] >= 0 && levels[k].height[r] == t) {
          step.transfers.push_back({r, static_cast<uint32_t>(trees[k].parent[r]), k, 1, true});
        }
      }
    }
    schedule.steps.push_back(std::move(step));
  }
  for (uint32_t t = 0; t < height; ++t) {
    Step step;
    for (uint32_t k = 0; k < 2; ++k) {
      for (uint32_t r = 0; r < peers; ++r) {
        if (levels[k].depth[r] != t) continue;
        for (uint32_t child : trees[k].children[r])
          step.transfers.push_back({r, child, k, 1, false});
      }
    }
    schedule.steps.push_back(std::move(step));
  }
  return schedule;
}

}  // namespace hfsim
