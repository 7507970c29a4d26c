// Direct schedules: every rank talks to every peer at once, one step per phase.
//
// The buffer is cut into n blocks; block j belongs to rank j (ShardBlocks = {j}).
//   reduce-scatter: 1 step, rank i sends block j to rank j for every j != i (reduce);
//   all-gather:     1 step, rank i sends block i to every peer (store);
//   all-reduce:     the two steps above;
//   all-to-all:     1 step, rank i sends block j (its data for rank j) to rank j (store).
#include "models/schedule-builders.h"

namespace hfsim {
namespace {

// One step in which every rank i sends one block to every peer j: block j when `to_owner`
// (the receiver's own block), else block i (the sender's own block).
Step AllPairsStep(uint32_t n, bool to_owner, bool reduce) {
  Step step;
  step.transfers.reserve(static_cast<size_t>(n) * (n - 1));
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      if (i != j) step.transfers.push_back({i, j, to_owner ? j : i, 1, reduce});
    }
  }
  return step;
}

}  // namespace

Schedule BuildDirectSchedule(CollectiveKind kind, uint32_t peers) {
  Schedule schedule;
  schedule.kind = kind;
  schedule.algorithm = CollectiveAlgorithm::kDirect;
  schedule.peers = peers;
  schedule.block_count = peers;
  switch (kind) {
    case CollectiveKind::kAllReduce:
      schedule.steps.push_back(AllPairsStep(peers, /*to_owner=*/true, /*reduce=*/true));
      schedule.steps.push_back(AllPairsStep(peers, /*to_owner=*/false, /*reduce=*/false));
      break;
    case CollectiveKind::kReduceScatter:
      schedule.steps.push_back(AllPairsStep(peers, /*to_owner=*/true, /*reduce=*/true));
      break;
    case CollectiveKind::kAllGather:
      schedule.steps.push_back(AllPairsStep(peers, /*to_owner=*/false, /*reduce=*/false));
      break;
    case CollectiveKind::kAllToAll:
      schedule.steps.push_back(AllPairsStep(peers, /*to_owner=*/true, /*reduce=*/false));
      break;
  }
  return schedule;
}

}  // namespace hfsim
