// A training job's communicators, numbered as ParallelGroup (training-loop.h): 0 "data" (the
// ranks holding the same parameters: same tensor index and stage, every data and context
// index), 1 "tensor" (same context, data and stage) and, with expert parallelism, 2 "expert"
// (same tensor index, copy and stage: the ranks whose routed experts make a whole layer) and
// 3 "expert_data" (same tensor index, expert rank and stage: the ranks holding the same
// experts).
//
// Where the ranks are placed along whole dimensions, each group is the ranks that differ only
// along its dimensions: the communicators are dimension-aligned and cost nothing to store.
// Otherwise (dimensions split, or ranks composed from the parallel axes) every group is listed,
// ranks ascending, stage by stage.
#pragma once

#include <vector>

#include "workloads/graph/execution-graph.h"
#include "workloads/graph/rank-placement.h"
#include "workloads/training-loop.h"

namespace hfsim {

std::vector<Communicator> TrainingCommunicators(const RankPlacement& placement,
                                                const TrainingConfig& config, uint32_t pipeline);

}  // namespace hfsim
