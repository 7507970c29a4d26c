// Bus bandwidth as nccl-tests reports it (NVIDIA/nccl-tests doc/PERFORMANCE.md; the
// *GetBw functions of src/all_reduce.cu, all_gather.cu, reduce_scatter.cu, alltoall.cu):
// algorithm bandwidth = size / time, with size the whole buffer nccl-tests prints (hfsim's
// size_bytes convention, workloads/collective-kind.h), times a factor that makes the figure
// comparable with the bottleneck link's rate whatever the number of ranks n.
#pragma once

#include <cstdint>

#include "workloads/collective-kind.h"

namespace hfsim {

/// 2(n-1)/n for an all-reduce, (n-1)/n for an all-gather, a reduce-scatter and an all-to-all.
inline double BusBandwidthFactor(CollectiveKind kind, uint64_t ranks) {
  const double n = static_cast<double>(ranks);
  const double share = (n - 1.0) / n;
  return kind == CollectiveKind::kAllReduce ? 2.0 * share : share;
}

/// GB/s (1 GB = 1e9 B, as nccl-tests prints) of a collective of `size_bytes` over `ranks` that
/// took `time_ns`; 0 for no time.
inline double BusBandwidthGBps(CollectiveKind kind, uint64_t ranks, uint64_t size_bytes,
                               double time_ns) {
  if (!(time_ns > 0.0)) return 0.0;
  // bytes per ns = GB/s
  return static_cast<double>(size_bytes) / time_ns * BusBandwidthFactor(kind, ranks);
}

}  // namespace hfsim
