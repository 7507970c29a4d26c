// Cutting a buffer into blocks (models/schedule.h: BlockBytes, BlockRunBytes).
#include <gtest/gtest.h>

#include "models/schedule.h"

namespace hfsim {
namespace {

TEST(BlockBytesTest, AwkwardSizeAddsUp) {
  // 1000003 = 7 * 142857 + 4: blocks 0..3 get 142858 bytes, blocks 4..6 get 142857.
  const uint64_t buffer = 1000003;
  EXPECT_EQ(BlockBytes(buffer, 7, 0), 142858u);
  EXPECT_EQ(BlockBytes(buffer, 7, 3), 142858u);
  EXPECT_EQ(BlockBytes(buffer, 7, 4), 142857u);
  EXPECT_EQ(BlockBytes(buffer, 7, 6), 142857u);
  uint64_t sum = 0;
  for (uint32_t b = 0; b < 7; ++b) sum += BlockBytes(buffer, 7, b);
  EXPECT_EQ(sum, buffer);
  EXPECT_EQ(BlockRunBytes(buffer, 7, 0, 7), buffer);
  EXPECT_EQ(BlockRunBytes(buffer, 7, 2, 3), 142858u * 2 + 142857u);  // blocks 2, 3 | 4
  EXPECT_EQ(BlockRunBytes(buffer, 7, 4, 3), 142857u * 3);
  EXPECT_EQ(BlockRunBytes(buffer, 7, 1, 2), 142858u * 2);
}

TEST(BlockBytesTest, RunsMatchSumsOfBlocks) {
  for (uint64_t buffer : {0ull, 1ull, 5ull, 64ull, 1000003ull, (1ull << 40) + 13}) {
    for (uint32_t blocks : {1u, 2u, 7u, 16u, 2048u}) {
      for (uint32_t first = 0; first < blocks; first += 1 + blocks / 9) {
        uint64_t sum = 0;
        for (uint32_t count = 1; first + count <= blocks; count += 1 + blocks / 7) {
          sum = 0;
          for (uint32_t b = first; b < first + count; ++b) sum += BlockBytes(buffer, blocks, b);
          EXPECT_EQ(BlockRunBytes(buffer, blocks, first, count), sum)
              << buffer << " bytes, " << blocks << " blocks, [" << first << ", +" << count << ")";
        }
      }
      EXPECT_EQ(BlockRunBytes(buffer, blocks, 0, blocks), buffer);
    }
  }
}

TEST(BlockBytesTest, MoreBlocksThanBytes) {
  // 3 bytes in 5 blocks: 1, 1, 1, 0, 0.
  EXPECT_EQ(BlockBytes(3, 5, 2), 1u);
  EXPECT_EQ(BlockBytes(3, 5, 3), 0u);
  EXPECT_EQ(BlockRunBytes(3, 5, 2, 3), 1u);
}

}  // namespace
}  // namespace hfsim
