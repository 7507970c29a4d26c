// Verification for the collective executor (ExecutorOptions::verify): a symbolic replay of what
// actually happens, with the semantics of models/schedule-check.h. Every receive is applied as it
// counts at its receiver with the sender's holdings snapshotted at its step start; every stage's
// postcondition is checked at every member. Costs peers x blocks x peers bits per group while a
// stage runs there.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/rank-set.h"
#include "sim/messages/collective-plan.h"

namespace hfsim::executor {

using rank_set::FirstCommon;
using rank_set::FirstMissing;
using rank_set::HasOnly;
using rank_set::IsEmpty;
constexpr auto AddRank = rank_set::Add;

// One stage of one chunk in one group: per (local rank, block) the set of local ranks whose
// contribution the rank holds, as in models/schedule-check.h. Blocks past the stage buffer's
// end hold 0 bytes (BlockBytes puts the empty blocks last) and are not tracked.
struct GroupReplay {
  static std::string S(uint64_t value) { return std::to_string(value); }

  GroupReplay(const CollectivePlan& plan, uint32_t stage, uint32_t chunk) {
    const StageRun& run = plan.stages[stage];
    const Schedule& schedule = run.schedule->Get();
    kind = run.stage.kind;
    peers = run.peers;
    words = (peers + 63) / 64;
    blocks = static_cast<uint32_t>(
        std::min<uint64_t>(schedule.block_count, plan.StageBytes(stage, chunk)));
    sets.assign(static_cast<size_t>(peers) * blocks * words, 0);
    marks.assign(static_cast<size_t>(peers) * blocks, 0);
    if (kind == CollectiveKind::kReduceScatter || kind == CollectiveKind::kAllGather) {
      owner.assign(schedule.block_count, 0);
      for (uint32_t r = 0; r < peers; ++r) {
        for (uint32_t b : ShardBlocks(run.stage.algorithm, peers, r)) owner[b] = r;
      }
    }
    for (uint32_t r = 0; r < peers; ++r) {
      for (uint32_t b = 0; b < blocks; ++b) {
        if (kind != CollectiveKind::kAllGather || owner[b] == r) AddRank(At(r, b), r);
      }
    }
  }

  uint64_t* At(uint32_t rank, uint32_t block) {
    return &sets[(static_cast<size_t>(rank) * blocks + block) * words];
  }

  CollectiveKind kind;
  uint32_t peers = 0;
  uint32_t words = 0;
  uint32_t blocks = 0;
  std::vector<uint64_t> sets;
  /// Per (rank, block): (step + 1) * 4 + what the last receive in that step did (kReduced or
  /// kStored), to refuse a block that is both reduced into and overwritten in one step.
  std::vector<uint32_t> marks;
  std::vector<uint32_t> owner;  ///< shard owner of each block (reduce-scatter, all-gather)
  uint32_t ranks_done = 0;
};

// The replay of one collective. Each stage is checked within each group and chunk as above; the
// stages are chained per NPU: an NPU must start stage s of chunk c only after its own stage s-1
// of chunk c ended meeting that stage's postcondition at that NPU (its shard reduced for a
// reduce-scatter, every block for an all-reduce or all-gather, its own block from every peer for
// an all-to-all). ComposeStages hands each stage exactly the previous stage's result at the same
// NPU (tests/models/multi-dim-collective-test.cc), so every stage verified at every NPU, chained
// in this order, is the multi-dimensional collective's postcondition; and a sender and receiver
// in different groups (a wrong peer mapping) is caught at the receive.
class CollectiveReplay {
  static std::string S(uint64_t value) { return std::to_string(value); }

 public:
  explicit CollectiveReplay(const CollectivePlan& plan)
      : m_plan(plan), m_members(plan.members) {
    size_t total = 0;
    for (const StageRun& run : plan.stages) {
      m_offset.push_back(total);
      total += static_cast<size_t>(plan.chunks) * (m_members / run.peers);
    }
    m_groups.resize(total);
    m_verified.assign(m_members * plan.chunks * plan.StageCount(), 0);
  }

  std::optional<std::string> StageStart(uint64_t npu, uint32_t stage, uint32_t chunk) {
    auto& group = m_groups[Slot(npu, stage, chunk)];
    if (!group) group = std::make_unique<GroupReplay>(m_plan, stage, chunk);
    if (stage > 0 && !Verified(npu, chunk, stage - 1)) {
      return Where(npu, stage, chunk) + "started before its stage " + S(stage - 1) +
             " of this chunk was complete there";
    }
    return std::nullopt;
  }

  /// Appends the sender's sets for the blocks of `t` (as they are now, at its step start).
  std::optional<std::string> Snapshot(uint64_t npu, uint32_t stage, uint32_t chunk, uint32_t step,
                                      const Transfer& t, std::vector<uint64_t>& payload) {
    GroupReplay* group = m_groups[Slot(npu, stage, chunk)].get();
    if (!group) return Where(npu, stage, chunk) + "sends in a stage it never started";
    const uint32_t rank = Rank(npu, stage);
    const uint32_t end = std::min(t.first_block + t.block_count, group->blocks);
    for (uint32_t b = t.first_block; b < end; ++b) {
      const uint64_t* held = group->At(rank, b);
      if (IsEmpty(held, group->words)) {
        return Where(npu, stage, chunk) + "step " + S(step) + ": sends block " + S(b) +
               " while holding nothing for it";
      }
      payload.insert(payload.end(), held, held + group->words);
    }
    return std::nullopt;
  }

  /// Applies a receive at `dst` as it counts as done, with the payload snapshot of the sender.
  std::optional<std::string> Apply(uint64_t src, uint64_t dst, uint32_t stage, uint32_t chunk,
                                   uint32_t step, const Transfer& t,
                                   const std::vector<uint64_t>& payload) {
    // Texts are built only on failure: this runs for every message.
    auto where = [&] {
      return Where(dst, stage, chunk) + "step " + S(step) + ", from NPU " + S(src) + ": ";
    };
    const uint64_t src_member = m_plan.Member(src);
    if (src_member == CollectivePlan::kNotMember ||
        m_plan.GroupIndex(src_member, stage) != m_plan.GroupIndex(m_plan.Member(dst), stage) ||
        Rank(src, stage) != t.src || Rank(dst, stage) != t.dst) {
      return where() + "sender and receiver are not local ranks " + S(t.src) + " and " + S(t.dst) +
             " of one group";
    }
    GroupReplay* group = m_groups[Slot(dst, stage, chunk)].get();
    if (!group) return where() + "received after the stage ended at every NPU of the group";
    const uint32_t words = group->words;
    const uint32_t end = std::min(t.first_block + t.block_count, group->blocks);
    if (payload.size() != static_cast<size_t>(end - std::min(end, t.first_block)) * words) {
      return where() + "payload does not match the transfer's blocks";
    }
    enum : uint32_t { kReduced = 1, kStored = 2 };
    const uint32_t this_step = (step + 1) * 4;
    for (uint32_t b = t.first_block, at = 0; b < end; ++b, at += words) {
      const uint64_t* in = &payload[at];
      uint64_t* held = group->At(t.dst, b);
      uint32_t& mark = group->marks[static_cast<size_t>(t.dst) * group->blocks + b];
      const uint32_t earlier = (mark & ~3u) == this_step ? (mark & 3u) : 0;
      auto block = [&] { return where() + "block " + S(b) + ": "; };
      if (t.reduce) {
        if (group->kind != CollectiveKind::kAllReduce &&
            group->kind != CollectiveKind::kReduceScatter) {
          return block() + "a " + std::string(ToString(group->kind)) + " must not reduce";
        }
        if (earlier == kStored) return block() + "reduced into and stored in the same step";
        if (const int64_t twice = FirstCommon(held, in, words); twice >= 0) {
          return block() + "the contribution of rank " + S(twice) + " is aggregated twice";
        }
        for (uint32_t w = 0; w < words; ++w) held[w] |= in[w];
        mark = this_step | kReduced;
        continue;
      }
      if (group->kind == CollectiveKind::kAllToAll) {
        if (const int64_t twice = FirstCommon(held, in, words); twice >= 0) {
          return block() + "already has rank " + S(twice) + "'s data";
        }
        for (uint32_t w = 0; w < words; ++w) held[w] |= in[w];
        mark = this_step | kStored;
        continue;
      }
      if (earlier != 0) return block() + "received twice in the same step";
      if (group->kind == CollectiveKind::kAllGather && !IsEmpty(held, words)) {
        return block() + "already held before the all-gather delivered it";
      }
      if (const int64_t lost = FirstMissing(held, in, words); lost >= 0) {
        return block() + "storing it loses the contribution of rank " + S(lost);
      }
      std::copy(in, in + words, held);
      mark = this_step | kStored;
    }
    return std::nullopt;
  }

  /// Checks the stage's postcondition for `npu` and marks it verified.
  std::optional<std::string> StageEnd(uint64_t npu, uint32_t stage, uint32_t chunk) {
    auto& slot = m_groups[Slot(npu, stage, chunk)];
    if (!slot) return Where(npu, stage, chunk) + "ended a stage it never started";
    GroupReplay& group = *slot;
    const uint32_t rank = Rank(npu, stage);
    std::vector<uint64_t> all(group.words, 0);
    for (uint32_t r = 0; r < group.peers; ++r) AddRank(all.data(), r);
    std::optional<std::string> error;
    for (uint32_t b = 0; b < group.blocks && !error; ++b) {
      const uint64_t* held = group.At(rank, b);
      switch (group.kind) {
        case CollectiveKind::kAllReduce:
        case CollectiveKind::kReduceScatter:
          if (group.kind == CollectiveKind::kReduceScatter && group.owner[b] != rank) break;
          if (const int64_t m = FirstMissing(all.data(), held, group.words); m >= 0) {
            error = "block " + S(b) + " lacks the contribution of rank " + S(m);
          }
          break;
        case CollectiveKind::kAllGather:
          if (!HasOnly(held, group.words, group.owner[b])) {
            error = "does not hold block " + S(b) + " of rank " + S(group.owner[b]);
          }
          break;
        case CollectiveKind::kAllToAll:
          if (b != rank) break;
          if (const int64_t m = FirstMissing(all.data(), held, group.words); m >= 0) {
            error = "has not received its block from rank " + S(m);
          }
          break;
      }
    }
    if (!error) m_verified[VerifiedIndex(npu, chunk, stage)] = 1;
    if (++group.ranks_done == group.peers) slot.reset();
    if (error) return Where(npu, stage, chunk) + "at the end of the stage, " + *error;
    return std::nullopt;
  }

  /// The first (NPU, chunk, stage) never verified, if any.
  std::optional<std::string> FinalCheck() const {
    for (uint64_t member = 0; member < m_members; ++member) {
      const uint64_t npu = m_plan.Npu(member);
      for (uint32_t c = 0; c < m_plan.chunks; ++c) {
        for (uint32_t s = 0; s < m_plan.StageCount(); ++s) {
          if (!Verified(npu, c, s)) return Where(npu, s, c) + "never verified complete";
        }
      }
    }
    return std::nullopt;
  }

 private:
  size_t Slot(uint64_t npu, uint32_t stage, uint32_t chunk) const {
    const uint64_t groups = m_members / m_plan.stages[stage].peers;
    return m_offset[stage] + chunk * groups + m_plan.GroupIndex(m_plan.Member(npu), stage);
  }
  uint32_t Rank(uint64_t npu, uint32_t stage) const {
    return m_plan.LocalRank(npu, stage);
  }
  size_t VerifiedIndex(uint64_t npu, uint32_t chunk, uint32_t stage) const {
    return (m_plan.Member(npu) * m_plan.chunks + chunk) * m_plan.StageCount() + stage;
  }
  bool Verified(uint64_t npu, uint32_t chunk, uint32_t stage) const {
    return m_verified[VerifiedIndex(npu, chunk, stage)] != 0;
  }
  std::string Where(uint64_t npu, uint32_t stage, uint32_t chunk) const {
    const StageRun& run = m_plan.stages[stage];
    return "verification: NPU " + S(npu) + ", stage " + S(stage) + " (" +
           std::string(ToString(run.stage.kind)) + " " +
           std::string(ToString(run.stage.algorithm)) + " on dimension " + S(run.stage.dimension) +
           "), chunk " + S(chunk) + ": ";
  }

  const CollectivePlan& m_plan;
  uint64_t m_members;
  std::vector<size_t> m_offset;  ///< first slot of each stage in m_groups
  std::vector<std::unique_ptr<GroupReplay>> m_groups;
  std::vector<uint8_t> m_verified;  ///< per (NPU, chunk, stage)
};

}  // namespace hfsim::executor
