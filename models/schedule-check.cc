#include "models/schedule-check.h"

#include "models/rank-set.h"

#include <bit>
#include <stdexcept>
#include <vector>

namespace hfsim {
namespace {

// peers x block_count sets of ranks, each a bitset of `words` 64-bit words.
class ContributionSets {
 public:
  ContributionSets(uint32_t peers, uint32_t blocks)
      : m_words((peers + 63) / 64),
        m_blocks(blocks),
        m_bits(static_cast<size_t>(peers) * blocks * m_words, 0) {}

  uint32_t Words() const { return m_words; }
  uint64_t* At(uint32_t rank, uint32_t block) {
    return &m_bits[(static_cast<size_t>(rank) * m_blocks + block) * m_words];
  }

 private:
  uint32_t m_words;
  uint32_t m_blocks;
  std::vector<uint64_t> m_bits;
};

using rank_set::FirstCommon;
using rank_set::FirstMissing;
using rank_set::HasOnly;
using rank_set::IsEmpty;
using rank_set::Add;

std::string S(uint64_t value) { return std::to_string(value); }

std::string TransferName(size_t step, const Transfer& t, uint32_t block) {
  return "step " + S(step) + ": rank " + S(t.src) + " -> rank " + S(t.dst) + ", block " + S(block) +
         ": ";
}

}  // namespace

std::optional<std::string> CheckSchedule(const Schedule& schedule) {
  const uint32_t n = schedule.peers;
  const uint32_t blocks = schedule.block_count;
  const CollectiveKind kind = schedule.kind;
  const std::string name = std::string(ToString(schedule.algorithm)) + " " +
                           std::string(ToString(kind)) + " on " + S(n) + " peers: ";
  if (n < 2) return name + "a collective needs at least 2 peers";
  if (blocks == 0) return name + "the buffer has no blocks";
  if (kind == CollectiveKind::kAllToAll && blocks != n) {
    return name + "all_to_all needs one block per peer, got " + S(blocks) + " blocks";
  }
  const bool reducing =
      kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter;

  // Shards: who owns which block after a reduce-scatter / before an all-gather.
  std::vector<int64_t> owner(blocks, -1);
  std::vector<std::vector<uint32_t>> shards(n);
  if (kind == CollectiveKind::kReduceScatter || kind == CollectiveKind::kAllGather) {
    for (uint32_t r = 0; r < n; ++r) {
      try {
        shards[r] = ShardBlocks(schedule.algorithm, n, r);
      } catch (const std::invalid_argument& error) {
        return name + error.what();
      }
      if (static_cast<uint64_t>(shards[r].size()) * n != blocks) {
        return name + "rank " + S(r) + "'s shard has " + S(shards[r].size()) + " of " + S(blocks) +
               " blocks, not 1/" + S(n) + " of the buffer";
      }
      for (uint32_t b : shards[r]) {
        if (b >= blocks) return name + "rank " + S(r) + "'s shard names block " + S(b);
        if (owner[b] >= 0) {
          return name + "block " + S(b) + " is in the shards of ranks " + S(owner[b]) + " and " +
                 S(r);
        }
        owner[b] = r;
      }
    }
  }

  ContributionSets state(n, blocks);
  const uint32_t words = state.Words();
  for (uint32_t r = 0; r < n; ++r) {
    if (kind == CollectiveKind::kAllGather) {
      for (uint32_t b : shards[r]) Add(state.At(r, b), r);
    } else {
      for (uint32_t b = 0; b < blocks; ++b) Add(state.At(r, b), r);
    }
  }

  enum : uint8_t { kNone, kReduced, kStored };
  std::vector<uint8_t> received(static_cast<size_t>(n) * blocks, kNone);
  std::vector<size_t> touched;
  std::vector<uint64_t> payload;
  for (size_t s = 0; s < schedule.steps.size(); ++s) {
    const std::vector<Transfer>& transfers = schedule.steps[s].transfers;
    // Read every payload before any write: the step's transfers happen at once.
    payload.clear();
    for (const Transfer& t : transfers) {
      if (t.src >= n || t.dst >= n || t.src == t.dst) {
        return name + "step " + S(s) + ": transfer rank " + S(t.src) + " -> rank " + S(t.dst) +
               " is not between two different peers";
      }
      if (t.block_count == 0 || static_cast<uint64_t>(t.first_block) + t.block_count > blocks) {
        return name + "step " + S(s) + ": rank " + S(t.src) + " -> rank " + S(t.dst) +
               " sends blocks [" + S(t.first_block) + ", " +
               S(uint64_t{t.first_block} + t.block_count) + ") of a buffer of " + S(blocks) +
               " blocks";
      }
      if (t.reduce && !reducing) {
        return name + TransferName(s, t, t.first_block) + "a " + std::string(ToString(kind)) +
               " must not reduce";
      }
      for (uint32_t b = t.first_block; b < t.first_block + t.block_count; ++b) {
        const uint64_t* sent = state.At(t.src, b);
        if (IsEmpty(sent, words)) {
          return name + TransferName(s, t, b) + "the sender holds nothing for this block";
        }
        payload.insert(payload.end(), sent, sent + words);
      }
    }
    size_t at = 0;
    for (const Transfer& t : transfers) {
      for (uint32_t b = t.first_block; b < t.first_block + t.block_count; ++b, at += words) {
        const uint64_t* in = &payload[at];
        uint64_t* held = state.At(t.dst, b);
        const size_t slot = static_cast<size_t>(t.dst) * blocks + b;
        if (received[slot] == kNone) touched.push_back(slot);
        if (t.reduce) {
          if (received[slot] == kStored) {
            return name + TransferName(s, t, b) + "the receiver also stores this block in the step";
          }
          if (const int64_t twice = FirstCommon(held, in, words); twice >= 0) {
            return name + TransferName(s, t, b) + "the contribution of rank " + S(twice) +
                   " would be aggregated twice";
          }
          for (uint32_t w = 0; w < words; ++w) held[w] |= in[w];
          received[slot] = kReduced;
          continue;
        }
        if (kind == CollectiveKind::kAllToAll) {
          if (const int64_t twice = FirstCommon(held, in, words); twice >= 0) {
            return name + TransferName(s, t, b) + "the receiver already has rank " + S(twice) +
                   "'s data for this block";
          }
          for (uint32_t w = 0; w < words; ++w) held[w] |= in[w];
          received[slot] = kStored;
          continue;
        }
        if (received[slot] != kNone) {
          return name + TransferName(s, t, b) + "the receiver gets this block twice in the step";
        }
        if (kind == CollectiveKind::kAllGather && !IsEmpty(held, words)) {
          return name + TransferName(s, t, b) + "the receiver already holds this block";
        }
        if (const int64_t lost = FirstMissing(held, in, words); lost >= 0) {
          return name + TransferName(s, t, b) + "storing it would lose the contribution of rank " +
                 S(lost);
        }
        for (uint32_t w = 0; w < words; ++w) held[w] = in[w];
        received[slot] = kStored;
      }
    }
    for (size_t slot : touched) received[slot] = kNone;
    touched.clear();
  }

  // Postconditions.
  std::vector<uint64_t> all(words, 0);
  for (uint32_t r = 0; r < n; ++r) Add(all.data(), r);
  auto missing_in = [&](uint32_t rank, uint32_t block) {
    return FirstMissing(all.data(), state.At(rank, block), words);
  };
  const std::string end = "at the end, ";
  switch (kind) {
    case CollectiveKind::kAllReduce:
      for (uint32_t r = 0; r < n; ++r) {
        for (uint32_t b = 0; b < blocks; ++b) {
          if (const int64_t m = missing_in(r, b); m >= 0) {
            return name + end + "rank " + S(r) + "'s block " + S(b) +
                   " lacks the contribution of rank " + S(m);
          }
        }
      }
      break;
    case CollectiveKind::kReduceScatter:
      for (uint32_t r = 0; r < n; ++r) {
        for (uint32_t b : shards[r]) {
          if (const int64_t m = missing_in(r, b); m >= 0) {
            return name + end + "rank " + S(r) + "'s shard block " + S(b) +
                   " lacks the contribution of rank " + S(m);
          }
        }
      }
      break;
    case CollectiveKind::kAllGather:
      for (uint32_t r = 0; r < n; ++r) {
        for (uint32_t b = 0; b < blocks; ++b) {
          if (!HasOnly(state.At(r, b), words, static_cast<uint32_t>(owner[b]))) {
            return name + end + "rank " + S(r) + " does not hold block " + S(b) + " of rank " +
                   S(owner[b]);
          }
        }
      }
      break;
    case CollectiveKind::kAllToAll:
      for (uint32_t j = 0; j < n; ++j) {
        if (const int64_t m = missing_in(j, j); m >= 0) {
          return name + end + "rank " + S(j) + " has not received its block from rank " + S(m);
        }
      }
      break;
  }
  return std::nullopt;
}

}  // namespace hfsim
