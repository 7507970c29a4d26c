// Runs a sweep's points on all cores of this machine: threads for the analytical engine (a
// point costs microseconds), forked worker processes for the packet engine (ns-3 keeps one
// simulator per process). Results come back to the calling thread in batches, so one place
// writes the CSV, draws the progress bar and, under MPI, talks to the other ranks.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/sweep/sweep-plan.h"

namespace hfsim {

struct PointResult {
  uint64_t point = 0;
  double time_ns = 0.0;
};

/// Which points this process evaluates: blocks of kBlockPoints consecutive points dealt out
/// round-robin over `size` shards (MPI ranks), so every shard gets a share of every region.
struct Shard {
  static constexpr uint64_t kBlockPoints = 256;
  uint32_t rank = 0;
  uint32_t size = 1;
  bool Owns(uint64_t point) const { return (point / kBlockPoints) % size == rank; }
};

struct RunnerOptions {
  uint32_t workers = 1;  ///< threads (analytical) or processes (packet)
  Shard shard;
};

using DeliverResults = std::function<void(std::span<const PointResult>)>;

/// Evaluates every point of `plan` owned by `options.shard` whose done[point] is 0. `deliver`
/// gets the results in batches on the calling thread; `idle` is called there at least every
/// 100 ms. Returns when all points are done or, early, once `stop` is set; an error message
/// when a worker process failed.
std::optional<std::string> RunSweepPoints(const SweepPlan& plan, const std::vector<uint8_t>& done,
                                          const RunnerOptions& options,
                                          const DeliverResults& deliver,
                                          const std::function<void()>& idle,
                                          const std::atomic<bool>& stop);

}  // namespace hfsim
