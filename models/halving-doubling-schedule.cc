// Halving-doubling schedules (Rabenseifner): recursive halving reduce-scatter, recursive doubling
// all-gather, all-reduce = the two in turn. n must be a power of two; the buffer is cut into n
// blocks.
//
// Partner order: the reduce-scatter pairs rank i with i XOR 1 first, then i XOR 2, ..., i XOR n/2,
// so the data halves (S/2, S/4, ..., S/n) while the partner distance doubles (1, 2, ..., n/2).
// On a physical Ring the distance is the hop count, and this order keeps bytes x hops at S/2 per
// step instead of sending the largest piece n/2 hops. The all-gather mirrors it: distance n/2
// with S/n first, ..., distance 1 with S/2 last.
//
// Which half a rank keeps: in the step with partner i XOR m, a rank whose bit m is 0 keeps the
// lower half of its current block range and sends the upper half (the partner keeps that one),
// and vice versa. The rank's lowest bit decides the first (largest) split, so after the
// reduce-scatter rank i holds block BitReverse(i, log2 n) (ShardBlocks). Example n = 8:
//   step 0 (xor 1): ranks 0,2,4,6 keep blocks [0,4), send [4,8); ranks 1,3,5,7 the reverse
//   step 1 (xor 2): rank 0 keeps [0,2) and sends [2,4) to rank 2, rank 1 keeps [4,6), ...
//   step 2 (xor 4): rank 0 keeps block 0, rank 4 block 1, rank 2 block 2, rank 6 block 3,
//                   rank 1 block 4, rank 5 block 5, rank 3 block 6, rank 7 block 7.
#include <bit>

#include "models/schedule-builders.h"

namespace hfsim {
namespace {

void AppendReduceScatter(Schedule& schedule) {
  const uint32_t n = schedule.peers;
  std::vector<uint32_t> first(n, 0);  // each rank's current block range [first, first + length)
  uint32_t length = n;
  for (uint32_t mask = 1; mask < n; mask <<= 1) {
    length /= 2;
    Step step;
    step.transfers.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
      const bool keep_upper = (i & mask) != 0;
      const uint32_t sent = keep_upper ? first[i] : first[i] + length;
      step.transfers.push_back({i, i ^ mask, sent, length, true});
    }
    for (uint32_t i = 0; i < n; ++i) {
      if ((i & mask) != 0) first[i] += length;
    }
    schedule.steps.push_back(std::move(step));
  }
}

void AppendAllGather(Schedule& schedule) {
  const uint32_t n = schedule.peers;
  const uint32_t bits = static_cast<uint32_t>(std::countr_zero(n));
  std::vector<uint32_t> first(n);
  for (uint32_t i = 0; i < n; ++i) first[i] = BitReverse(i, bits);
  uint32_t length = 1;
  for (uint32_t mask = n / 2; mask >= 1; mask >>= 1) {
    Step step;
    step.transfers.reserve(n);
    for (uint32_t i = 0; i < n; ++i)
      step.transfers.push_back({i, i ^ mask, first[i], length, false});
    // The partner's range is the adjacent one of the same length: together they form the aligned
    // range twice as long.
    for (uint32_t i = 0; i < n; ++i) first[i] -= first[i] % (2 * length);
    length *= 2;
    schedule.steps.push_back(std::move(step));
  }
}

}  // namespace

uint32_t BitReverse(uint32_t value, uint32_t bits) {
  uint32_t reversed = 0;
  for (uint32_t b = 0; b < bits; ++b) reversed |= ((value >> b) & 1u) << (bits - 1 - b);
  return reversed;
}

Schedule BuildHalvingDoublingSchedule(CollectiveKind kind, uint32_t peers) {
  Schedule schedule;
  schedule.kind = kind;
  schedule.algorithm = CollectiveAlgorithm::kHalvingDoubling;
  schedule.peers = peers;
  schedule.block_count = peers;
  if (kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter) {
    AppendReduceScatter(schedule);
  }
  if (kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kAllGather) {
    AppendAllGather(schedule);
  }
  return schedule;
}

}  // namespace hfsim
