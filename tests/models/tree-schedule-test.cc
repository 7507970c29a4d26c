// Shapes of the double binary tree (models/tree-schedule.cc) and the order of its steps.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "models/schedule-builders.h"
#include "models/schedule.h"
#include "tests/models/transfer-printer.h"

namespace hfsim {
namespace {

using Kids = std::vector<uint32_t>;

TEST(DoubleBinaryTreeTest, ShapesForEight) {
  // The example drawn in tree-schedule.cc.
  const auto trees = DoubleBinaryTrees(8);
  EXPECT_EQ(trees[0].root, 0u);
  EXPECT_EQ(trees[0].children[0], (Kids{4}));
  EXPECT_EQ(trees[0].children[4], (Kids{2, 6}));
  EXPECT_EQ(trees[0].children[2], (Kids{1, 3}));
  EXPECT_EQ(trees[0].children[6], (Kids{5, 7}));
  EXPECT_EQ(trees[1].root, 7u);
  EXPECT_EQ(trees[1].children[7], (Kids{3}));
  EXPECT_EQ(trees[1].children[3], (Kids{1, 5}));
  EXPECT_EQ(trees[1].children[1], (Kids{0, 2}));
  EXPECT_EQ(trees[1].children[5], (Kids{4, 6}));
  for (uint32_t leaf : {1u, 3u, 5u, 7u}) EXPECT_TRUE(trees[0].children[leaf].empty());
  for (uint32_t leaf : {0u, 2u, 4u, 6u}) EXPECT_TRUE(trees[1].children[leaf].empty());
}

TEST(DoubleBinaryTreeTest, OddSizesShiftTheTree) {
  // n = 5: tree 0 is 0 -> 4 -> 2 -> {1, 3}; tree 1 is it with every rank + 1 (mod 5).
  const auto trees = DoubleBinaryTrees(5);
  EXPECT_EQ(trees[0].children[0], (Kids{4}));
  EXPECT_EQ(trees[0].children[4], (Kids{2}));
  EXPECT_EQ(trees[0].children[2], (Kids{1, 3}));
  EXPECT_EQ(trees[1].root, 1u);
  EXPECT_EQ(trees[1].children[1], (Kids{0}));
  EXPECT_EQ(trees[1].children[0], (Kids{3}));
  EXPECT_EQ(trees[1].children[3], (Kids{2, 4}));
}

TEST(DoubleBinaryTreeTest, TreesAreBinarySpanningAndComplementary) {
  for (uint32_t n = 2; n <= 1100; ++n) {
    const auto trees = DoubleBinaryTrees(n);
    std::vector<int> interior(n, 0);
    for (const BinaryTree& tree : trees) {
      ASSERT_EQ(tree.parent.size(), n);
      uint32_t edges = 0;
      for (uint32_t r = 0; r < n; ++r) {
        ASSERT_LE(tree.children[r].size(), 2u) << "n " << n << " rank " << r;
        edges += static_cast<uint32_t>(tree.children[r].size());
        if (!tree.children[r].empty()) ++interior[r];
        for (uint32_t child : tree.children[r]) ASSERT_EQ(tree.parent[child], static_cast<int>(r));
      }
      ASSERT_EQ(edges, n - 1);
      ASSERT_EQ(tree.parent[tree.root], -1);
      // Every rank reaches the root (no cycles): walk up at most n steps.
      for (uint32_t r = 0; r < n; ++r) {
        uint32_t at = r;
        for (uint32_t hop = 0; hop < n && at != tree.root; ++hop) at = tree.parent[at];
        ASSERT_EQ(at, tree.root) << "n " << n << " rank " << r;
      }
    }
    // Interior in both trees: nobody for even n, only rank 0 for odd n.
    std::set<uint32_t> both;
    for (uint32_t r = 0; r < n; ++r) {
      if (interior[r] == 2) both.insert(r);
    }
    if (n % 2 == 0) {
      EXPECT_TRUE(both.empty()) << "n " << n;
    } else {
      EXPECT_EQ(both, (std::set<uint32_t>{0})) << "n " << n;
    }
  }
}

TEST(DoubleBinaryTreeTest, StepsOfEight) {
  // Height 3 in both trees: 3 reduce steps, then 3 broadcast steps.
  const Schedule s =
      BuildSchedule(CollectiveKind::kAllReduce, CollectiveAlgorithm::kDoubleBinaryTree, 8);
  EXPECT_EQ(s.block_count, 2u);
  ASSERT_EQ(s.steps.size(), 6u);
  // Step 0: every leaf sends to its parent (4 leaves per tree).
  EXPECT_EQ(s.steps[0].transfers.size(), 8u);
  for (const Transfer& t : s.steps[0].transfers) {
    EXPECT_TRUE(t.reduce);
    EXPECT_EQ(t.src % 2, t.first_block == 0 ? 1u : 0u);  // tree 0 leaves are odd, tree 1 even
  }
  EXPECT_EQ(s.steps[2].transfers, (std::vector<Transfer>{{4, 0, 0, 1, true}, {3, 7, 1, 1, true}}));
  EXPECT_EQ(s.steps[3].transfers,
            (std::vector<Transfer>{{0, 4, 0, 1, false}, {7, 3, 1, 1, false}}));
  EXPECT_EQ(s.steps[5].transfers.size(), 8u);
}

}  // namespace
}  // namespace hfsim
