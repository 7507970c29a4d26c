// A symbolic replay of a schedule that proves it computes its collective.
//
// Every rank tracks, per block, the set of ranks whose contribution it holds. Start (per kind):
//   all-reduce, reduce-scatter: every rank holds its own contribution to every block;
//   all-gather: a rank holds its own data for its shard blocks (ShardBlocks) and nothing else;
//   all-to-all: every rank holds its own data for every block (block j is destined to rank j).
// A transfer carries the sender's sets for its blocks as they were when the step began (the
// step's transfers run at once), and the sender must hold something for each of them. Then:
//   reduce = true  (all-reduce and reduce-scatter only): the receiver adds the sets; a
//                  contribution it already has would be aggregated twice, which is an error;
//   reduce = false: all-reduce / reduce-scatter: the receiver replaces its set, which must not
//                  lose a contribution it had (a broadcast of a more complete result);
//                  all-gather: the receiver must not yet have the block;
//                  all-to-all: the receiver collects the data, never the same source twice.
// In one step a (rank, block) receives either reductions or a single replacing store.
// End (per kind):
//   all-reduce: every rank holds all n contributions to every block;
//   reduce-scatter: every rank holds all n contributions to each of its shard blocks, and the
//                   shards partition the buffer into equal parts;
//   all-gather: every rank holds every block, from its owner;
//   all-to-all: rank j holds block j from every rank.
//
// Meant for tests and for engines that want to validate a schedule before running it. Memory is
// peers * block_count * peers bits: fine for groups of a few hundred ranks.
#pragma once

#include <optional>
#include <string>

#include "models/schedule.h"

namespace hfsim {

/// nullopt when `schedule` is correct, else a sentence naming the first violation (step, ranks,
/// block).
std::optional<std::string> CheckSchedule(const Schedule& schedule);

}  // namespace hfsim
