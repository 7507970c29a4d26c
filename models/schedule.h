// A collective on one dimension group, written out as a schedule: in each step, who sends which
// blocks of the buffer to whom, and whether the receiver reduces (adds) them into its copy.
//
// This is the one definition of every algorithm. The analytical engine prices a schedule in
// closed form (schedule-profile.h); the packet engine sends its transfers as messages.
//
// The buffer is cut into `block_count` blocks of (nearly) equal size; a transfer names a run of
// consecutive blocks. Peers are local indices 0..peers-1 within the group; the caller maps them
// to NPU ids with Topology::PeerAlong.
#pragma once

#include <cstdint>
#include <vector>

#include "models/collective.h"

namespace hfsim {

struct Transfer {
  uint32_t src = 0;
  uint32_t dst = 0;
  uint32_t first_block = 0;
  uint32_t block_count = 0;
  /// True when the receiver adds the blocks into its own copy (a reduction happens at dst);
  /// false when it stores them (gather, broadcast or all-to-all delivery).
  bool reduce = false;

  bool operator==(const Transfer&) const = default;
};

/// Transfers in one step may all proceed at once; a step starts when the previous one is done.
struct Step {
  std::vector<Transfer> transfers;
};

struct Schedule {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kRing;
  uint32_t peers = 0;
  uint32_t block_count = 0;
  std::vector<Step> steps;
};

/// Builds the schedule of `kind` with `algorithm` on a group of `peers`. Precondition:
/// UnsupportedReason(kind, algorithm, peers) is nullopt (otherwise throws std::invalid_argument).
Schedule BuildSchedule(CollectiveKind kind, CollectiveAlgorithm algorithm, uint32_t peers);

/// The blocks (numbered as in that algorithm's schedules) rank `rank` holds fully reduced after a
/// reduce-scatter with `algorithm` on `peers`, which is also what it must hold when an all-gather
/// starts. The ranks' shards partition the buffer, 1/peers of it each:
///   ring:             {rank, peers + rank}  (block_count 2*peers: one block per direction)
///   direct:           {rank}                (block_count peers)
///   halving_doubling: {BitReverse(rank)}    (block_count peers; e.g. peers 8: rank 1 -> block 4,
///                                            rank 3 -> block 6; see halving-doubling-schedule.cc)
/// double_binary_tree runs all-reduce only and has no shards: throws std::invalid_argument.
std::vector<uint32_t> ShardBlocks(CollectiveAlgorithm algorithm, uint32_t peers, uint32_t rank);

/// BuildSchedule(kind, algorithm, peers).block_count, and the most blocks one of its transfers
/// carries, known without building the schedule (the packet engine's largest message is checked
/// when a scenario loads; schedules of large groups are large). in_network has no peer-to-peer
/// schedule: {0, 0}.
struct TransferBlocks {
  uint32_t block_count = 0;
  uint32_t largest = 0;
};
TransferBlocks LargestTransfer(CollectiveKind kind, CollectiveAlgorithm algorithm, uint32_t peers);

/// Bytes in block b when a buffer of `buffer_bytes` is cut into `block_count` blocks: the first
/// buffer_bytes % block_count blocks are one byte larger, so the blocks add up to the buffer.
uint64_t BlockBytes(uint64_t buffer_bytes, uint32_t block_count, uint32_t block);
/// Bytes in blocks [first, first + count).
uint64_t BlockRunBytes(uint64_t buffer_bytes, uint32_t block_count, uint32_t first, uint32_t count);

}  // namespace hfsim
