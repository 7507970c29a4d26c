// The parameter-server traffic generator: key -> shard maps, dense partitioning, sparse key sets
// and the hot/cold split, each against counts worked out independently.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "workloads/parameter-server.h"

namespace hfsim {
namespace {

ParameterServerWorkload Sparse(uint32_t workers, uint32_t shards, uint64_t keys, uint64_t lookups,
                               double s) {
  ParameterServerWorkload ps;
  for (uint32_t w = 0; w < workers; ++w) ps.worker_npus.push_back(w);
  for (uint32_t m = 0; m < shards; ++m) ps.server_npus.push_back(workers + m);
  ps.kind = PsModelKind::kSparse;
  ps.sparse = {keys, 64, lookups, s};
  return ps;
}

TEST(KeyPartition, HashSpreadsKeysEvenly) {
  // 100,000 consecutive keys over 8 shards: each shard within 4 binomial standard deviations
  // (sqrt(n p (1-p)) = 104.6) of n / 8 = 12,500.
  std::vector<int> count(8, 0);
  for (uint64_t key = 0; key < 100000; ++key) {
    ++count[ShardOfKey(key, 100000, 8, KeyPartition::kHash)];
  }
  for (int c : count) EXPECT_NEAR(c, 12500, 4 * 104.6);
}

TEST(KeyPartition, HashSpreadsTheHotKeys) {
  // The 64 hottest keys (ids 0..63) over 4 shards: none gets more than 2x its share.
  std::vector<int> count(4, 0);
  for (uint64_t key = 0; key < 64; ++key) ++count[ShardOfKey(key, 1000, 4, KeyPartition::kHash)];
  for (int c : count) EXPECT_LE(c, 32);
}

TEST(KeyPartition, RangeIsContiguousAndBalanced) {
  // 10 keys over 3 shards: floor(k * 3 / 10) = 0,0,0,0,1,1,1,2,2,2.
  const std::vector<uint32_t> expected = {0, 0, 0, 0, 1, 1, 1, 2, 2, 2};
  for (uint64_t key = 0; key < 10; ++key) {
    EXPECT_EQ(ShardOfKey(key, 10, 3, KeyPartition::kRange), expected[key]);
  }
}

TEST(DenseKeys, TensorsCutIntoPartitions) {
  EXPECT_EQ(DenseKeyBytes({10, 0, 25}, 10), (std::vector<uint64_t>{10, 10, 10, 5}));
  EXPECT_EQ(DenseKeyBytes({7}, 100), (std::vector<uint64_t>{7}));
}

TEST(DenseTraffic, EveryWorkerPushesEveryKeyToItsShard) {
  ParameterServerWorkload ps;
  ps.worker_npus = {0, 1, 2};
  ps.server_npus = {3, 4};
  ps.kind = PsModelKind::kDense;
  ps.dense.key_bytes = DenseKeyBytes({1000, 500}, 300);  // 300 300 300 100 300 200: 6 keys
  ps.partition = KeyPartition::kRange;                   // keys 0-2 -> shard 0, 3-5 -> shard 1
  const PsIterationTraffic t = BuildIterationTraffic(ps, 1, 0);
  for (uint32_t w = 0; w < 3; ++w) {
    EXPECT_EQ(t.SliceKeys(w, 0), 3u);
    EXPECT_EQ(t.SliceBytes(w, 0), 900u + 3 * kPsKeyIdBytes);
    EXPECT_EQ(t.SliceKeys(w, 1), 3u);
    EXPECT_EQ(t.SliceBytes(w, 1), 600u + 3 * kPsKeyIdBytes);
  }
  EXPECT_EQ(t.ShardBytes(0), 3u * 924u);
  EXPECT_EQ(t.PushersOf(1), 3u);
  EXPECT_EQ(t.SliceKeyIds(ps, 2, 1), (std::vector<uint64_t>{3, 4, 5}));
}

TEST(SparseTraffic, KeysAreDistinctSortedAndAddUp) {
  const ParameterServerWorkload ps = Sparse(4, 3, 100000, 5000, 1.1);
  const PsIterationTraffic t = BuildIterationTraffic(ps, 7, 2);
  for (uint32_t w = 0; w < 4; ++w) {
    const auto& keys = t.worker_keys[w];
    EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
    EXPECT_EQ(std::adjacent_find(keys.begin(), keys.end()), keys.end());
    EXPECT_LE(keys.size(), 5000u);
    EXPECT_LT(keys.back(), 100000u);
    uint64_t keys_in_slices = 0;
    for (uint32_t m = 0; m < 3; ++m) {
      keys_in_slices += t.SliceKeys(w, m);
      EXPECT_EQ(t.SliceBytes(w, m), t.SliceKeys(w, m) * (64 + kPsKeyIdBytes));
      for (uint64_t key : t.SliceKeyIds(ps, w, m)) EXPECT_EQ(ps.ShardOf(key), m);
    }
    EXPECT_EQ(keys_in_slices, keys.size());
  }
  // Regenerating any (iteration, worker) alone gives the same keys; other workers differ.
  EXPECT_EQ(SampleWorkerKeys(ps, 7, 2, 3), t.worker_keys[3]);
  EXPECT_NE(t.worker_keys[0], t.worker_keys[1]);
  EXPECT_NE(SampleWorkerKeys(ps, 7, 3, 0), t.worker_keys[0]);
}

TEST(SparseTraffic, SkewMakesTheHotSetCarryMostLookups) {
  // With s = 1.1 over 10^6 keys, the 1,000 hottest keys draw H(1000,1.1)/H(10^6,1.1) of all
  // lookups = 5.573 / 8.073 = 69% (uniform lookups would hit them 0.1% of the time). A worker
  // drawing 20,000 lookups touches key r with probability 1 - exp(-20000 p(r)): summed over the
  // hot set, 902 of the 1,000 are expected (standard deviation about 9).
  const ParameterServerWorkload ps = Sparse(2, 2, 1000000, 20000, 1.1);
  const PsIterationTraffic t = BuildIterationTraffic(ps, 1, 0, /*hot_key_count=*/1000);
  for (uint32_t w = 0; w < 2; ++w) {
    EXPECT_NEAR(static_cast<double>(t.hot_keys[w]), 902.0, 40.0);
    EXPECT_EQ(t.hot_bytes[w], t.hot_keys[w] * (64 + kPsKeyIdBytes));
    const uint64_t hot = static_cast<uint64_t>(
        std::lower_bound(t.worker_keys[w].begin(), t.worker_keys[w].end(), 1000) -
        t.worker_keys[w].begin());
    EXPECT_EQ(t.hot_keys[w], hot);
    EXPECT_EQ(t.SliceKeys(w, 0) + t.SliceKeys(w, 1) + hot, t.worker_keys[w].size());
    for (uint32_t m = 0; m < 2; ++m) {
      for (uint64_t key : t.SliceKeyIds(ps, w, m)) EXPECT_GE(key, 1000u);
    }
  }
}

}  // namespace
}  // namespace hfsim
