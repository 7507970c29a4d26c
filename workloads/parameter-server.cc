#include "workloads/parameter-server.h"

#include <algorithm>
#include <stdexcept>

#include "workloads/zipf-sampler.h"

namespace hfsim {

uint64_t ParameterServerWorkload::KeyCount() const {
  return kind == PsModelKind::kDense ? dense.key_bytes.size() : sparse.key_count;
}

uint64_t ParameterServerWorkload::ValueBytes(uint64_t key) const {
  return kind == PsModelKind::kDense ? dense.key_bytes[key] : sparse.bytes_per_key;
}

PsWireBytes ParameterServerWorkload::WireBytes(uint64_t key) const {
  const uint64_t bytes = ValueBytes(key);
  return wire_encoding ? wire_encoding(bytes) : PsWireBytes{bytes, bytes};
}

uint32_t ParameterServerWorkload::ShardOf(uint64_t key) const {
  return ShardOfKey(key, KeyCount(), Shards(), partition);
}

std::vector<uint64_t> DenseKeyBytes(const std::vector<uint64_t>& tensor_bytes,
                                    uint64_t partition_bytes) {
  if (partition_bytes == 0) throw std::invalid_argument("DenseKeyBytes: partition_bytes is 0");
  std::vector<uint64_t> keys;
  for (uint64_t bytes : tensor_bytes) {
    for (uint64_t left = bytes; left > 0; left -= std::min(left, partition_bytes)) {
      keys.push_back(std::min(left, partition_bytes));
    }
  }
  return keys;
}

uint32_t ShardOfKey(uint64_t key, uint64_t key_count, uint32_t shards, KeyPartition partition) {
  if (partition == KeyPartition::kHash) return static_cast<uint32_t>(SplitMix64(key) % shards);
  return static_cast<uint32_t>(static_cast<unsigned __int128>(key) * shards / key_count);
}

std::mt19937_64 PsKeyEngine(uint64_t seed, uint32_t iteration, uint32_t worker) {
  return std::mt19937_64(SplitMix64(SplitMix64(SplitMix64(seed) + iteration) + worker));
}

std::vector<uint64_t> SampleWorkerKeys(const ParameterServerWorkload& workload, uint64_t seed,
                                       uint32_t iteration, uint32_t worker) {
  const PsSparseModel& model = workload.sparse;
  const ZipfSampler sampler(model.key_count, model.zipf_exponent);
  std::mt19937_64 engine = PsKeyEngine(seed, iteration, worker);
  std::vector<uint64_t> keys(model.lookups_per_worker);
  for (uint64_t& key : keys) key = sampler.Sample(engine);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

uint64_t PsIterationTraffic::ShardBytes(uint32_t shard) const {
  uint64_t bytes = 0;
  for (uint32_t w = 0; w < workers; ++w) bytes += SliceBytes(w, shard);
  return bytes;
}

uint32_t PsIterationTraffic::PushersOf(uint32_t shard) const {
  uint32_t count = 0;
  for (uint32_t w = 0; w < workers; ++w) count += SliceKeys(w, shard) > 0 ? 1 : 0;
  return count;
}

std::vector<uint64_t> PsIterationTraffic::SliceKeyIds(const ParameterServerWorkload& workload,
                                                      uint32_t worker, uint32_t shard) const {
  std::vector<uint64_t> ids;
  auto take = [&](uint64_t key) {
    if (key >= hot_key_count && workload.ShardOf(key) == shard) ids.push_back(key);
  };
  if (workload.kind == PsModelKind::kDense) {
    for (uint64_t key = 0; key < workload.KeyCount(); ++key) take(key);
  } else {
    for (uint64_t key : worker_keys[worker]) take(key);
  }
  return ids;
}

PsIterationTraffic BuildIterationTraffic(const ParameterServerWorkload& workload, uint64_t seed,
                                         uint32_t iteration, uint64_t hot_key_count) {
  PsIterationTraffic traffic;
  traffic.workers = workload.Workers();
  traffic.shards = workload.Shards();
  traffic.hot_key_count = hot_key_count;
  traffic.hot_keys.assign(traffic.workers, 0);
  traffic.hot_bytes.assign(traffic.workers, 0);
  traffic.slice_keys.assign(static_cast<size_t>(traffic.workers) * traffic.shards, 0);
  traffic.slice_bytes.assign(traffic.slice_keys.size(), 0);
  traffic.pull_slice_bytes.assign(traffic.slice_keys.size(), 0);
  auto add = [&](uint32_t worker, uint64_t key) {
    if (key < hot_key_count) {
      ++traffic.hot_keys[worker];
      traffic.hot_bytes[worker] += workload.ValueBytes(key) + kPsKeyIdBytes;
      return;
    }
    const PsWireBytes wire = workload.WireBytes(key);
    const size_t slice = static_cast<size_t>(worker) * traffic.shards + workload.ShardOf(key);
    ++traffic.slice_keys[slice];
    traffic.slice_bytes[slice] += wire.push + kPsKeyIdBytes;
    traffic.pull_slice_bytes[slice] += wire.pull + kPsKeyIdBytes;
  };
  if (workload.kind == PsModelKind::kDense) {
    // Every worker touches every key: fill worker 0, copy.
    for (uint64_t key = 0; key < workload.KeyCount(); ++key) add(0, key);
    for (uint32_t w = 1; w < traffic.workers; ++w) {
      std::copy_n(traffic.slice_keys.begin(), traffic.shards,
                  traffic.slice_keys.begin() + static_cast<ptrdiff_t>(w) * traffic.shards);
      std::copy_n(traffic.slice_bytes.begin(), traffic.shards,
                  traffic.slice_bytes.begin() + static_cast<ptrdiff_t>(w) * traffic.shards);
      std::copy_n(traffic.pull_slice_bytes.begin(), traffic.shards,
                  traffic.pull_slice_bytes.begin() + static_cast<ptrdiff_t>(w) * traffic.shards);
      traffic.hot_keys[w] = traffic.hot_keys[0];
      traffic.hot_bytes[w] = traffic.hot_bytes[0];
    }
    return traffic;
  }
  traffic.worker_keys.resize(traffic.workers);
  for (uint32_t w = 0; w < traffic.workers; ++w) {
    traffic.worker_keys[w] = SampleWorkerKeys(workload, seed, iteration, w);
    for (uint64_t key : traffic.worker_keys[w]) add(w, key);
  }
  return traffic;
}

}  // namespace hfsim
