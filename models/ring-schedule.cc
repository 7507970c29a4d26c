// Bidirectional ring schedules.
//
// Reduce-scatter and all-gather cut the buffer into 2n blocks: blocks [0, n) travel clockwise
// (rank i sends to i+1), blocks [n, 2n) counter-clockwise (to i-1), so every step moves S/(2n)
// each way and a physical ring's two half-bandwidth links are both busy.
//
// Ownership (ShardBlocks): after the reduce-scatter rank i holds blocks i and n+i fully reduced,
// and the all-gather starts from exactly that, so all-reduce = reduce-scatter + all-gather.
// Example n = 4, clockwise half, reduce-scatter (rank i sends block (i-k-1) mod n in step k):
//   step 0: 0->1 b3, 1->2 b0, 2->3 b1, 3->0 b2
//   step 1: 0->1 b2, 1->2 b3, 2->3 b0, 3->0 b1
//   step 2: 0->1 b1, 1->2 b2, 2->3 b3, 3->0 b0   => rank i has block i from all four ranks.
// The counter-clockwise half mirrors it (rank i sends block n + (i+k+1) mod n to i-1).
//
// All-to-all uses the buffer's n blocks (block j is destined to rank j): in step k = 1..n-1 rank
// i sends block (i+k) mod n straight to rank (i+k) mod n. On a physical Ring that route is up to
// n/2 hops long; the links it crosses are the profile's business, not the schedule's.
#include "models/schedule-builders.h"

namespace hfsim {
namespace {

void AppendReduceScatter(Schedule& schedule) {
  const uint32_t n = schedule.peers;
  for (uint32_t k = 0; k + 1 < n; ++k) {
    Step step;
    step.transfers.reserve(2 * n);
    for (uint32_t i = 0; i < n; ++i) {
      step.transfers.push_back({i, (i + 1) % n, (i + n - k - 1) % n, 1, true});
      step.transfers.push_back({i, (i + n - 1) % n, n + (i + k + 1) % n, 1, true});
    }
    schedule.steps.push_back(std::move(step));
  }
}

void AppendAllGather(Schedule& schedule) {
  const uint32_t n = schedule.peers;
  for (uint32_t k = 0; k + 1 < n; ++k) {
    Step step;
    step.transfers.reserve(2 * n);
    for (uint32_t i = 0; i < n; ++i) {
      step.transfers.push_back({i, (i + 1) % n, (i + n - k) % n, 1, false});
      step.transfers.push_back({i, (i + n - 1) % n, n + (i + k) % n, 1, false});
    }
    schedule.steps.push_back(std::move(step));
  }
}

void AppendAllToAll(Schedule& schedule) {
  const uint32_t n = schedule.peers;
  for (uint32_t k = 1; k < n; ++k) {
    Step step;
    step.transfers.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t dst = (i + k) % n;
      step.transfers.push_back({i, dst, dst, 1, false});
    }
    schedule.steps.push_back(std::move(step));
  }
}

}  // namespace

Schedule BuildRingSchedule(CollectiveKind kind, uint32_t peers) {
  Schedule schedule;
  schedule.kind = kind;
  schedule.algorithm = CollectiveAlgorithm::kRing;
  schedule.peers = peers;
  schedule.block_count = kind == CollectiveKind::kAllToAll ? peers : 2 * peers;
  switch (kind) {
    case CollectiveKind::kAllReduce:
      AppendReduceScatter(schedule);
      AppendAllGather(schedule);
      break;
    case CollectiveKind::kReduceScatter:
      AppendReduceScatter(schedule);
      break;
    case CollectiveKind::kAllGather:
      AppendAllGather(schedule);
      break;
    case CollectiveKind::kAllToAll:
      AppendAllToAll(schedule);
      break;
  }
  return schedule;
}

}  // namespace hfsim
