// PS-lite style parameter-server training: N workers push gradients to M server shards and pull
// the updated parameters back, every iteration. This file defines the workload (who is a worker,
// who serves which keys, what a key weighs) and the traffic of one iteration; both engines read
// it (sim/analytical/ps-pricing.h prices it, sim/messages/ps-driver.h sends it).
//
// Keys. A dense model's gradient is cut, layer by layer, into partitions of at most
// partition_bytes (BytePS-style); partition i is key i. A sparse model (embedding table) has
// key_count rows of bytes_per_key each; key id k is the (k+1)-th most popular row, drawn from
// Zipf(s) (workloads/zipf-sampler.h), so the hot set of the H most frequent keys is [0, H).
//
// Key -> shard (deterministic):
//   hash:  shard = SplitMix64(key) mod M  (SplitMix64's finaliser: Steele, Lea and Flood, 2014)
//   range: shard = floor(key * M / key_count), contiguous ranges as PS-lite's default server
//          key ranges (with Zipf ids this puts the hottest keys on shard 0: the skewed case).
//
// One iteration: each worker samples lookups_per_worker key draws (sparse; deduplicated) or
// touches every key (dense), and for every shard holding some of its keys sends one push message
// of sum over those keys of (value bytes + 8 bytes of key id); the shard answers each pusher with
// a pull of the same size once it has aggregated all pushes of the iteration. Workers with no key
// on a shard send it nothing (PS-lite's slicer skips empty slices).
//
// Hot/cold split: BuildIterationTraffic(..., hot_key_count = H) leaves keys [0, H) out of every
// slice and counts them per worker, ready for an aggregation switch to take them.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "base/name-table.h"
#include "base/splitmix64.h"

namespace hfsim {

/// Bytes of one key id in a push or pull message (PS-lite sends keys as uint64).
inline constexpr uint64_t kPsKeyIdBytes = 8;

enum class PsModelKind { kDense, kSparse };
enum class KeyPartition { kHash, kRange };
/// Scenario spellings (workload.parameter_server.key_partition).
inline constexpr NameTable<KeyPartition, 2> kKeyPartitionNames = {{
    {KeyPartition::kHash, "hash"},
    {KeyPartition::kRange, "range"},
}};
inline std::string_view ToString(KeyPartition partition) {
  return NameIn(kKeyPartitionNames, partition);
}

struct PsDenseModel {
  /// Zoo name, or empty when `params` was given directly.
  std::string zoo_name;
  uint64_t params = 0;
  uint32_t bytes_per_param = 4;
  /// Largest key (partition) in bytes; BytePS's default is 4,096,000.
  uint64_t partition_bytes = 4096000;
  /// Value bytes of every key, in key id order (DenseKeyBytes of the layers' gradients).
  std::vector<uint64_t> key_bytes;
};

struct PsSparseModel {
  uint64_t key_count = 0;
  /// Value bytes of one key (an embedding row: dimension x bytes per element).
  uint64_t bytes_per_key = 0;
  /// Key draws per worker per iteration (with replacement; duplicates are merged).
  uint64_t lookups_per_worker = 0;
  /// Zipf exponent s (0 = uniform).
  double zipf_exponent = 0.0;
};

/// Bytes one key's values take on the wire in each direction.
struct PsWireBytes {
  uint64_t push = 0;
  uint64_t pull = 0;
};

struct ParameterServerWorkload {
  /// NPU ids of the N workers (distinct) and of the M server shards (distinct; a server may share
  /// an NPU with a worker, as BytePS colocates them). Shard m runs on server_npus[m].
  std::vector<uint64_t> worker_npus;
  std::vector<uint64_t> server_npus;
  PsModelKind kind = PsModelKind::kDense;
  PsDenseModel dense;
  PsSparseModel sparse;
  KeyPartition partition = KeyPartition::kHash;
  uint32_t iterations = 1;
  /// Each worker computes this long before its pushes of every iteration, ns.
  double worker_compute_ns = 0.0;

  uint32_t Workers() const { return static_cast<uint32_t>(worker_npus.size()); }
  uint32_t Shards() const { return static_cast<uint32_t>(server_npus.size()); }
  /// How a key's values travel: fp32 both ways when unset; set by the scenario loader from
  /// communication.compression (S5: THC, FP16, top-k; models/compression/wire-size.h), which
  /// workloads/ cannot depend on. Argument: the key's value bytes.
  std::function<PsWireBytes(uint64_t value_bytes)> wire_encoding;

  uint64_t KeyCount() const;
  /// Value bytes of key `key` (without its id).
  uint64_t ValueBytes(uint64_t key) const;
  /// Bytes key `key`'s values take on the wire, pushed and pulled (without its id).
  PsWireBytes WireBytes(uint64_t key) const;
  uint32_t ShardOf(uint64_t key) const;
};

/// Cuts each tensor (bytes, in order; 0-byte tensors are skipped) into keys of at most
/// `partition_bytes`: ceil(b / p) keys per tensor, all of p bytes except a smaller last one.
std::vector<uint64_t> DenseKeyBytes(const std::vector<uint64_t>& tensor_bytes,
                                    uint64_t partition_bytes);

uint32_t ShardOfKey(uint64_t key, uint64_t key_count, uint32_t shards, KeyPartition partition);

/// The engine that draws worker `worker`'s keys in `iteration`: seeded from (seed, iteration,
/// worker) alone, so any iteration or worker can be regenerated independently, in any order.
std::mt19937_64 PsKeyEngine(uint64_t seed, uint32_t iteration, uint32_t worker);

/// Sparse only: worker `worker`'s distinct keys in `iteration`, ascending.
std::vector<uint64_t> SampleWorkerKeys(const ParameterServerWorkload& workload, uint64_t seed,
                                       uint32_t iteration, uint32_t worker);

struct PsIterationTraffic {
  uint32_t workers = 0;
  uint32_t shards = 0;
  /// Sparse: each worker's distinct keys, ascending, hot ones included. Dense: empty (every
  /// worker touches every key).
  std::vector<std::vector<uint64_t>> worker_keys;
  /// Keys [0, hot_key_count) are left out of the slices below (0: none).
  uint64_t hot_key_count = 0;
  /// Per worker: its keys below hot_key_count, and their bytes (values + ids).
  std::vector<uint64_t> hot_keys;
  std::vector<uint64_t> hot_bytes;
  /// Indexed [worker * shards + shard]: the cold keys of that worker that belong to that shard,
  /// and the bytes of its push and of the pull back: sum of (wire bytes of the values + 8).
  std::vector<uint64_t> slice_keys;
  std::vector<uint64_t> slice_bytes;
  std::vector<uint64_t> pull_slice_bytes;

  uint64_t SliceKeys(uint32_t worker, uint32_t shard) const {
    return slice_keys[static_cast<size_t>(worker) * shards + shard];
  }
  uint64_t SliceBytes(uint32_t worker, uint32_t shard) const {
    return slice_bytes[static_cast<size_t>(worker) * shards + shard];
  }
  /// Bytes of the pull back to the worker: SliceBytes unless the values are compressed.
  uint64_t PullSliceBytes(uint32_t worker, uint32_t shard) const {
    return pull_slice_bytes[static_cast<size_t>(worker) * shards + shard];
  }
  /// Bytes shard `shard` receives in pushes (and sends in pulls) this iteration.
  uint64_t ShardBytes(uint32_t shard) const;
  /// Workers with a non-empty slice on `shard`: the pushes it waits for.
  uint32_t PushersOf(uint32_t shard) const;
  /// The key ids of slice (worker, shard), ascending.
  std::vector<uint64_t> SliceKeyIds(const ParameterServerWorkload& workload, uint32_t worker,
                                    uint32_t shard) const;
};

/// The traffic of iteration `iteration` (0-based), keys [0, hot_key_count) excluded from slices.
PsIterationTraffic BuildIterationTraffic(const ParameterServerWorkload& workload, uint64_t seed,
                                         uint32_t iteration, uint64_t hot_key_count = 0);

}  // namespace hfsim
