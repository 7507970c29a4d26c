#include "sim/packet/collective-executor.h"

#include "models/rank-set.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <span>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "models/multi-dim-collective.h"
#include "models/schedule.h"
#include "sim/packet/error-log.h"
#include "topologies/dimension-links.h"
#include "workloads/graph/group-shape.h"

namespace hfsim {
namespace {

std::string S(uint64_t value) { return std::to_string(value); }

// ---------------------------------------------------------------------------------------------
// Schedules, indexed for one rank's view.

// A schedule plus, per step and rank, the indices of the transfers that rank sends and receives
// (compressed rows over all steps, so a step start touches only the rank's own transfers).
class IndexedSchedule {
 public:
  explicit IndexedSchedule(Schedule schedule) : m_schedule(std::move(schedule)) {
    Index(/*by_source=*/true, m_send_offset, m_send_items);
    Index(/*by_source=*/false, m_receive_offset, m_receive_items);
  }

  const Schedule& Get() const { return m_schedule; }
  uint32_t StepCount() const { return static_cast<uint32_t>(m_schedule.steps.size()); }
  const Transfer& At(uint32_t step, uint32_t transfer) const {
    return m_schedule.steps[step].transfers[transfer];
  }
  std::span<const uint32_t> Sends(uint32_t step, uint32_t rank) const {
    return Row(m_send_offset, m_send_items, step, rank);
  }
  std::span<const uint32_t> Receives(uint32_t step, uint32_t rank) const {
    return Row(m_receive_offset, m_receive_items, step, rank);
  }

 private:
  std::span<const uint32_t> Row(const std::vector<uint32_t>& offset,
                                const std::vector<uint32_t>& items, uint32_t step,
                                uint32_t rank) const {
    const size_t at = static_cast<size_t>(step) * (m_schedule.peers + 1) + rank;
    return {items.data() + offset[at], offset[at + 1] - offset[at]};
  }

  void Index(bool by_source, std::vector<uint32_t>& offset, std::vector<uint32_t>& items) {
    const uint32_t n = m_schedule.peers;
    offset.assign(m_schedule.steps.size() * (n + 1), 0);
    uint32_t running = 0;
    for (size_t k = 0; k < m_schedule.steps.size(); ++k) {
      const auto& transfers = m_schedule.steps[k].transfers;
      uint32_t* row = &offset[k * (n + 1)];
      for (const Transfer& t : transfers) ++row[(by_source ? t.src : t.dst) + 1];
      row[0] = running;
      for (uint32_t r = 0; r < n; ++r) row[r + 1] += row[r];
      running = row[n];
      items.resize(running);
      std::vector<uint32_t> cursor(row, row + n);
      for (uint32_t i = 0; i < transfers.size(); ++i) {
        items[cursor[by_source ? transfers[i].src : transfers[i].dst]++] = i;
      }
    }
  }

  Schedule m_schedule;
  std::vector<uint32_t> m_send_offset, m_send_items, m_receive_offset, m_receive_items;
};

// ---------------------------------------------------------------------------------------------
// The static description of one collective: its stages and its chunking.

struct StageRun {
  CollectiveStage stage;
  const IndexedSchedule* schedule = nullptr;
  uint32_t peers = 0;
  /// The stage's dimension's weight in a member index (CollectivePlan::Member).
  uint64_t member_stride = 0;
  /// This stage's buffer for a chunk of size_bytes / chunks bytes and for one a byte larger.
  uint64_t small_chunk_bytes = 0;
  uint64_t large_chunk_bytes = 0;
};

struct CollectivePlan {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  uint64_t size_bytes = 0;
  std::vector<StageRun> stages;
  uint32_t chunks = 1;
  /// Chunks [0, large_chunks) are one byte larger (BlockBytes(size_bytes, chunks, c)).
  uint64_t large_chunks = 0;

  // The members: every NPU whose coordinate along each dimension d is one of coordinates[d].
  // A member's index is its position in that product set, coordinates of dimension 0 varying
  // fastest; with every coordinate taken (`whole`) it is the NPU id itself. Per-member state is
  // indexed by it, so a collective over a group of k NPUs costs k, not the fabric's size.
  bool whole = true;
  uint64_t members = 0;
  std::vector<std::vector<uint32_t>> coordinates;  ///< per dimension, ascending
  std::vector<std::vector<uint32_t>> position;     ///< per dimension: coordinate -> its index
  std::vector<uint64_t> member_stride;             ///< per dimension
  std::vector<uint64_t> fabric_stride;             ///< per dimension (Topology::Stride)
  std::vector<uint32_t> fabric_size;               ///< per dimension

  static constexpr uint32_t kAbsent = UINT32_MAX;

  uint32_t StageCount() const { return static_cast<uint32_t>(stages.size()); }
  uint64_t StageBytes(uint32_t stage, uint32_t chunk) const {
    return chunk < large_chunks ? stages[stage].large_chunk_bytes : stages[stage].small_chunk_bytes;
  }
  uint64_t TransferBytes(uint32_t stage, uint32_t chunk, const Transfer& t) const {
    return BlockRunBytes(StageBytes(stage, chunk), stages[stage].schedule->Get().block_count,
                         t.first_block, t.block_count);
  }
  uint32_t Coordinate(uint64_t npu, uint32_t dimension) const {
    return static_cast<uint32_t>((npu / fabric_stride[dimension]) % fabric_size[dimension]);
  }
  /// `npu`'s member index, or kNotMember.
  uint64_t Member(uint64_t npu) const {
    if (whole) return npu;
    uint64_t member = 0;
    for (size_t d = 0; d < coordinates.size(); ++d) {
      const uint32_t at = position[d][Coordinate(npu, static_cast<uint32_t>(d))];
      if (at == kAbsent) return kNotMember;
      member += at * member_stride[d];
    }
    return member;
  }
  static constexpr uint64_t kNotMember = UINT64_MAX;
  /// The NPU of member index `member`.
  uint64_t Npu(uint64_t member) const {
    if (whole) return member;
    uint64_t npu = 0;
    for (size_t d = 0; d < coordinates.size(); ++d) {
      npu += coordinates[d][(member / member_stride[d]) % coordinates[d].size()] * fabric_stride[d];
    }
    return npu;
  }
  /// `npu`'s rank within its line of the stage's dimension (its schedule's local rank).
  uint32_t LocalRank(uint64_t npu, uint32_t stage) const {
    const uint32_t d = stages[stage].stage.dimension;
    return position[d][Coordinate(npu, d)];
  }
  /// The NPU at local rank `rank` of `npu`'s line along the stage's dimension.
  uint64_t PeerNpu(uint64_t npu, uint32_t stage, uint32_t rank) const {
    const uint32_t d = stages[stage].stage.dimension;
    return npu - Coordinate(npu, d) * fabric_stride[d] + coordinates[d][rank] * fabric_stride[d];
  }
  /// The fabric coordinate of local rank `rank` along the stage's dimension.
  uint32_t CoordinateOf(uint32_t stage, uint32_t rank) const {
    return coordinates[stages[stage].stage.dimension][rank];
  }
  /// Index of member `member`'s line along the stage's dimension, in [0, members / peers): its
  /// index with that dimension's part removed.
  uint64_t GroupIndex(uint64_t member, uint32_t stage) const {
    const StageRun& run = stages[stage];
    return member % run.member_stride +
           (member / (run.member_stride * run.peers)) * run.member_stride;
  }
};

// ---------------------------------------------------------------------------------------------
// Verification: a symbolic replay of what actually happens.

using rank_set::FirstCommon;
using rank_set::FirstMissing;
using rank_set::HasOnly;
using rank_set::IsEmpty;
constexpr auto AddRank = rank_set::Add;

// One stage of one chunk in one group: per (local rank, block) the set of local ranks whose
// contribution the rank holds, as in models/schedule-check.h. Blocks past the stage buffer's
// end hold 0 bytes (BlockBytes puts the empty blocks last) and are not tracked.
struct GroupReplay {
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

// ---------------------------------------------------------------------------------------------
// Run-time state.

/// One NPU's progress through one stage of a collective. At most one chunk is in a stage at a
/// time at an NPU (chunk c enters only when chunk c-1 has left), so this state is reused.
struct StageProgress {
  uint32_t next_chunk = 0;  ///< chunks [0, next_chunk) have finished this stage
  uint32_t step = 0;        ///< step of chunk next_chunk, when active
  uint32_t sends_pending = 0;
  uint32_t receives_pending = 0;
  bool active = false;
  bool delay_pending = false;  ///< the step's endpoint delay has not yet passed
};

struct CollectiveRun {
  CollectivePlan plan;
  CollectiveStats stats;
  bool finished = false;  ///< every NPU done
  uint64_t messages_live = 0;
  // Per NPU (released when finished and no message of this collective is live).
  std::vector<uint8_t> entered;
  std::vector<uint8_t> done;
  std::vector<std::function<void()>> callbacks;
  std::vector<std::vector<uint32_t>> early;  ///< message slots delivered ahead of the receiver
  std::vector<StageProgress> progress;       ///< per (NPU, stage)
  // Verification only.
  std::unique_ptr<CollectiveReplay> replay;
  std::vector<std::vector<std::vector<uint64_t>>> snapshots;  ///< per (NPU, stage): per send

  StageProgress& Progress(uint64_t npu, uint32_t stage) {
    return progress[plan.Member(npu) * plan.StageCount() + stage];
  }
};

struct MessageRecord {
  uint32_t generation = 0;
  CollectiveId collective = 0;
  uint32_t src = 0;
  uint32_t dst = 0;
  uint32_t stage = 0;
  uint32_t chunk = 0;
  uint32_t step = 0;
  uint32_t transfer = 0;
  uint64_t bytes = 0;
  double sent_ns = 0.0;
  double delivered_ns = 0.0;
  double acknowledged_ns = 0.0;
  bool reduce = false;
  bool live = false;
  bool delivered = false;
  bool acknowledged = false;
  bool consumed = false;  ///< the receiver counted it (after any reduction)
};

}  // namespace

// ---------------------------------------------------------------------------------------------

class CollectiveExecutor::Impl {
 public:
  Impl(const Topology& topology, const CommunicationSpec& communication, EventClock& clock,
       MessageTransport& transport, ExecutorOptions options)
      : m_topology(topology),
        m_spec(communication),
        m_clock(clock),
        m_transport(transport),
        m_options(options),
        m_npus(topology.NpuCount()),
        m_reduction_free_ns(m_npus, 0.0),
        m_host_free_ns(m_npus, 0.0) {
    if (m_npus >= (uint64_t{1} << 32)) {
      throw std::invalid_argument("CollectiveExecutor: NPU ids must fit in 32 bits");
    }
    if (m_spec.chunks == 0) throw std::invalid_argument("CollectiveExecutor: chunks must be >= 1");
    m_transport.SetHandlers(
        {[this](uint64_t id) { OnDelivered(id); }, [this](uint64_t id) { OnAcknowledged(id); }});
  }

  CollectiveId Create(CollectiveKind kind, uint64_t size_bytes, const CollectiveMembers& members);
  void Enter(CollectiveId id, uint64_t npu, std::function<void()> done);
  bool CheckComplete();

  uint32_t Count() const { return static_cast<uint32_t>(m_runs.size()); }
  const CollectiveRun& Run(CollectiveId id) const {
    if (id >= m_runs.size()) throw std::invalid_argument("CollectiveExecutor: unknown id");
    return *m_runs[id];
  }
  const std::vector<std::string>& Errors() const { return m_errors.Texts(); }
  uint64_t ErrorCount() const { return m_errors.Count(); }
  uint64_t DuplicateDeliveries() const { return m_duplicate_deliveries; }
  const std::vector<MessageTiming>& Times() const { return m_times; }

 private:
  struct WorkItem {
    CollectiveId collective;
    uint32_t npu;
    uint32_t stage;
  };

  const IndexedSchedule& CachedSchedule(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                        uint32_t peers);
  void Kick(CollectiveId id, uint64_t npu, uint32_t stage) {
    m_work.push_back({id, static_cast<uint32_t>(npu), stage});
  }
  void Drain();
  void Advance(const WorkItem& item);
  void StartStep(CollectiveRun& run, CollectiveId id, uint64_t npu, uint32_t stage);
  void IssueSends(CollectiveRun& run, CollectiveId id, uint64_t npu, uint32_t stage);
  void PullEarly(CollectiveRun& run, uint64_t npu, uint32_t stage);
  void NpuDone(CollectiveRun& run, uint64_t npu);
  void OnDelivered(uint64_t id);
  void OnAcknowledged(uint64_t id);
  /// The host's cost before the NPU's sends of its current step leave (models/host-stack.h).
  double HostSendNs(CollectiveRun& run, uint64_t npu, uint32_t stage);
  /// The links of a dimension (hops for the host stack's round trips), built when first needed.
  const DimensionLinks& Links(uint32_t dimension);
  /// A delivered message counted at its step: host receive, then reduction, then FinishReceive.
  void Consume(uint32_t slot);
  void Reduce(uint32_t slot);
  void FinishReceive(uint32_t slot);
  void MaybeFree(uint32_t slot);
  void Release(CollectiveRun& run);
  /// The live record of message `id`, or nullopt (with an error) when there is none.
  std::optional<uint32_t> Lookup(uint64_t id, const char* event);
  std::string Describe(const MessageRecord& m) const;
  void AddError(std::string text) { m_errors.Add(std::move(text)); }
  bool IgnoresReceives() const {
    return m_options.fault == ExecutorOptions::Fault::kStepIgnoresReceives;
  }

  Topology m_topology;
  CommunicationSpec m_spec;
  EventClock& m_clock;
  MessageTransport& m_transport;
  ExecutorOptions m_options;
  uint64_t m_npus;

  std::map<std::tuple<CollectiveKind, CollectiveAlgorithm, uint32_t>,
           std::unique_ptr<IndexedSchedule>>
      m_schedules;
  std::vector<std::unique_ptr<CollectiveRun>> m_runs;
  std::vector<MessageRecord> m_messages;  ///< slots; a message id is (generation << 32) | slot
  std::vector<uint32_t> m_free_slots;
  std::vector<std::vector<uint64_t>> m_payloads;  ///< per slot, verification only
  std::vector<double> m_reduction_free_ns;        ///< per NPU: when its reduction engine is idle
  std::vector<double> m_host_free_ns;  ///< per NPU: when its host receive engine is idle
  std::vector<std::unique_ptr<DimensionLinks>> m_links;  ///< per dimension, see Links()
  std::vector<WorkItem> m_work;
  bool m_draining = false;
  ErrorLog m_errors;
  uint64_t m_duplicate_deliveries = 0;
  std::vector<MessageTiming> m_times;
};

const IndexedSchedule& CollectiveExecutor::Impl::CachedSchedule(CollectiveKind kind,
                                                                CollectiveAlgorithm algorithm,
                                                                uint32_t peers) {
  auto& entry = m_schedules[{kind, algorithm, peers}];
  if (!entry) entry = std::make_unique<IndexedSchedule>(BuildSchedule(kind, algorithm, peers));
  return *entry;
}

CollectiveId CollectiveExecutor::Impl::Create(CollectiveKind kind, uint64_t size_bytes,
                                              const CollectiveMembers& members) {
  const uint32_t dimension_count = m_topology.DimensionCount();
  if (members.coordinates.size() > dimension_count) {
    throw std::invalid_argument("CollectiveExecutor::Create: coordinates for " +
                                S(members.coordinates.size()) + " dimensions on a fabric of " +
                                S(dimension_count));
  }
  auto run = std::make_unique<CollectiveRun>();
  CollectivePlan& plan = run->plan;
  plan.kind = kind;
  plan.size_bytes = size_bytes;
  plan.chunks = m_spec.chunks;
  plan.large_chunks = size_bytes % m_spec.chunks;
  plan.members = 1;
  GroupShape shape;  // the members' lines, for the stages' sizes
  for (uint32_t d = 0; d < dimension_count; ++d) {
    const uint32_t size = m_topology.Dim(d).size;
    std::vector<uint32_t> coordinates;
    if (d < members.coordinates.size() && !members.coordinates[d].empty()) {
      coordinates = members.coordinates[d];
      for (size_t i = 0; i < coordinates.size(); ++i) {
        if (coordinates[i] >= size || (i > 0 && coordinates[i] <= coordinates[i - 1])) {
          throw std::invalid_argument("CollectiveExecutor::Create: dimension " + S(d) +
                                      ": coordinates must ascend and be below " + S(size));
        }
      }
    } else {
      for (uint32_t c = 0; c < size; ++c) coordinates.push_back(c);
    }
    plan.whole &= coordinates.size() == size;
    plan.position.emplace_back(size, CollectivePlan::kAbsent);
    for (uint32_t i = 0; i < coordinates.size(); ++i) plan.position[d][coordinates[i]] = i;
    plan.member_stride.push_back(plan.members);
    plan.fabric_stride.push_back(m_topology.Stride(d));
    plan.fabric_size.push_back(size);
    plan.members *= coordinates.size();
    plan.coordinates.push_back(std::move(coordinates));
  }
  for (const uint32_t d : members.dimensions) {
    if (d >= dimension_count) {
      throw std::invalid_argument("CollectiveExecutor::Create: no dimension " + S(d));
    }
    shape.dimensions.push_back(d);
    shape.sizes.push_back(static_cast<uint32_t>(plan.coordinates[d].size()));
  }
  // A group of part of a dimension sees a smaller dimension of the same kind, as the
  // analytical engine prices it (sim/analytical/collective-pricing.cc).
  const Topology seen(DimensionsSeenBy(m_topology.Dimensions(), shape));
  const uint64_t small_chunk = size_bytes / m_spec.chunks;
  const auto stages =
      ComposeStages(kind, m_spec.scheme, members.dimensions, seen, m_spec.AlgorithmsFor(kind));
  for (size_t s = 0; s < stages.size(); ++s) {
    const CollectiveStage& stage = stages[s];
    const uint32_t peers = seen.Dim(stage.dimension).size;
    if (auto reason = UnsupportedReason(stage.kind, stage.algorithm, peers)) {
      throw std::invalid_argument("CollectiveExecutor::Create: stage " + S(s) + " on dimension " +
                                  S(stage.dimension) + ": " + *reason);
    }
    StageRun stage_run;
    stage_run.stage = stage;
    stage_run.schedule = &CachedSchedule(stage.kind, stage.algorithm, peers);
    stage_run.peers = peers;
    stage_run.member_stride = plan.member_stride[stage.dimension];
    // The same rounding of the fractional stage buffer for every chunk of a size.
    stage_run.small_chunk_bytes = static_cast<uint64_t>(
        std::llround(stage.buffer_fraction * static_cast<double>(small_chunk)));
    stage_run.large_chunk_bytes = static_cast<uint64_t>(
        std::llround(stage.buffer_fraction * static_cast<double>(small_chunk + 1)));
    if (stage_run.schedule->StepCount() == 0) {
      throw std::logic_error("CollectiveExecutor::Create: a schedule without steps");
    }
    plan.stages.push_back(stage_run);
  }

  // What the schedules plan, from the schedules alone: per stage and kind of chunk, one group's
  // transfers times the number of groups and chunks.
  CollectiveStats& stats = run->stats;
  for (uint32_t s = 0; s < plan.StageCount(); ++s) {
    const StageRun& stage = plan.stages[s];
    const uint64_t groups = plan.members / stage.peers;
    const uint64_t large = plan.large_chunks;
    for (const auto& [chunk, count] :
         {std::pair<uint32_t, uint64_t>{0, large},
          std::pair<uint32_t, uint64_t>{plan.chunks - 1, plan.chunks - large}}) {
      if (count == 0) continue;
      for (const Step& step : stage.schedule->Get().steps) {
        for (const Transfer& t : step.transfers) {
          const uint64_t bytes = plan.TransferBytes(s, chunk, t);
          if (bytes == 0) continue;
          stats.bytes_scheduled += bytes * groups * count;
          stats.messages_scheduled += groups * count;
          if (t.reduce) stats.reductions_scheduled += groups * count;
        }
      }
    }
  }

  run->entered.assign(plan.members, 0);
  run->done.assign(plan.members, 0);
  run->callbacks.resize(plan.members);
  run->early.resize(plan.members);
  run->progress.assign(plan.members * plan.StageCount(), StageProgress{});
  if (m_options.verify) {
    run->replay = std::make_unique<CollectiveReplay>(run->plan);
    run->snapshots.resize(plan.members * plan.StageCount());
  }
  m_runs.push_back(std::move(run));
  return static_cast<CollectiveId>(m_runs.size() - 1);
}

void CollectiveExecutor::Impl::Enter(CollectiveId id, uint64_t npu, std::function<void()> done) {
  if (id >= m_runs.size()) {
    throw std::invalid_argument("CollectiveExecutor::Enter: unknown collective " + S(id));
  }
  if (npu >= m_npus) throw std::invalid_argument("CollectiveExecutor::Enter: no NPU " + S(npu));
  CollectiveRun& run = *m_runs[id];
  if (run.plan.Member(npu) == CollectivePlan::kNotMember) {
    throw std::invalid_argument("CollectiveExecutor::Enter: NPU " + S(npu) +
                                " is not a member of collective " + S(id));
  }
  if (run.finished || run.entered[run.plan.Member(npu)]) {
    throw std::logic_error("CollectiveExecutor::Enter: NPU " + S(npu) +
                           " already entered collective " + S(id));
  }
  run.entered[run.plan.Member(npu)] = 1;
  run.callbacks[run.plan.Member(npu)] = std::move(done);
  const double now = m_clock.NowNs();
  CollectiveStats& stats = run.stats;
  if (stats.npus_entered++ == 0) stats.first_enter_ns = now;
  stats.last_enter_ns = now;
  Kick(id, npu, 0);
  Drain();
}

void CollectiveExecutor::Impl::Drain() {
  // A work list instead of recursion: steps with nothing to wait for (0-byte chunks, idle tree
  // ranks) chain into the next at once, which would otherwise nest calls thousands deep. Callers
  // (including `done` callbacks that enter the next collective) just append.
  if (m_draining) return;
  m_draining = true;
  for (size_t i = 0; i < m_work.size(); ++i) {
    const WorkItem item = m_work[i];  // a copy: Advance appends, which may move the list
    Advance(item);
  }
  m_work.clear();
  m_draining = false;
}

void CollectiveExecutor::Impl::Advance(const WorkItem& item) {
  CollectiveRun& run = *m_runs[item.collective];
  if (run.finished || !run.entered[run.plan.Member(item.npu)]) return;
  const CollectivePlan& plan = run.plan;
  const uint32_t s = item.stage;
  StageProgress& p = run.Progress(item.npu, s);
  while (true) {
    if (p.active) {
      if (p.delay_pending || p.sends_pending > 0 ||
          (p.receives_pending > 0 && !IgnoresReceives())) {
        return;
      }
      if (++p.step < plan.stages[s].schedule->StepCount()) {
        StartStep(run, item.collective, item.npu, s);
        continue;
      }
      if (run.replay) {
        if (auto error = run.replay->StageEnd(item.npu, s, p.next_chunk)) AddError(*error);
      }
      p.active = false;
      ++p.next_chunk;
      if (s + 1 < plan.StageCount()) {
        Kick(item.collective, item.npu, s + 1);
      } else if (p.next_chunk == plan.chunks) {
        NpuDone(run, item.npu);
        return;
      }
      continue;
    }
    const uint32_t chunk = p.next_chunk;
    if (chunk >= plan.chunks) return;
    if (s > 0 && run.Progress(item.npu, s - 1).next_chunk <= chunk) return;
    if (run.replay) {
      if (auto error = run.replay->StageStart(item.npu, s, chunk)) AddError(*error);
    }
    p.active = true;
    p.step = 0;
    StartStep(run, item.collective, item.npu, s);
  }
}

void CollectiveExecutor::Impl::StartStep(CollectiveRun& run, CollectiveId id, uint64_t npu,
                                         uint32_t stage) {
  const CollectivePlan& plan = run.plan;
  const StageRun& stage_run = plan.stages[stage];
  StageProgress& p = run.Progress(npu, stage);
  const uint32_t rank = plan.LocalRank(npu, stage);
  const IndexedSchedule& schedule = *stage_run.schedule;
  p.sends_pending = 0;
  p.receives_pending = 0;
  for (uint32_t i : schedule.Receives(p.step, rank)) {
    if (plan.TransferBytes(stage, p.next_chunk, schedule.At(p.step, i)) > 0) ++p.receives_pending;
  }
  for (uint32_t i : schedule.Sends(p.step, rank)) {
    if (plan.TransferBytes(stage, p.next_chunk, schedule.At(p.step, i)) > 0) ++p.sends_pending;
  }
  if (run.replay) {
    // The sender's sets as they are when its step begins, before this step's receives count
    // (the schedule's transfers of one step happen at once).
    auto& snapshots = run.snapshots[plan.Member(npu) * plan.StageCount() + stage];
    snapshots.clear();
    for (uint32_t i : schedule.Sends(p.step, rank)) {
      const Transfer& t = schedule.At(p.step, i);
      if (plan.TransferBytes(stage, p.next_chunk, t) == 0) continue;
      snapshots.emplace_back();
      if (auto error =
              run.replay->Snapshot(npu, stage, p.next_chunk, p.step, t, snapshots.back())) {
        AddError(*error);
      }
    }
  }
  // Before its sends leave, the NPU pays the step's endpoint delay and its host's cost of each
  // message (models/host-stack.h), exactly as the analytical profile charges them.
  const double delay_ns = m_spec.endpoint_delay_ns + HostSendNs(run, npu, stage);
  if (delay_ns > 0.0) {
    p.delay_pending = true;
    m_clock.ScheduleNs(delay_ns, [this, id, npu, stage] {
      CollectiveRun& delayed = *m_runs[id];
      delayed.Progress(npu, stage).delay_pending = false;
      IssueSends(delayed, id, npu, stage);
      Kick(id, npu, stage);
      Drain();
    });
  } else {
    IssueSends(run, id, npu, stage);
  }
  PullEarly(run, npu, stage);
}

double CollectiveExecutor::Impl::HostSendNs(CollectiveRun& run, uint64_t npu,
                                            uint32_t stage) {
  const StageProgress& p = run.Progress(npu, stage);
  const HostStack& host = m_spec.host;
  // Only a posting cost (host_overhead_ns_per_message): the older sum, to the last bit.
  if (!host.HasMoreThanPosting()) return host.PostingNs(p.sends_pending);
  const CollectivePlan& plan = run.plan;
  const StageRun& stage_run = plan.stages[stage];
  const uint32_t dimension = stage_run.stage.dimension;
  const uint32_t rank = plan.LocalRank(npu, stage);
  const uint32_t coordinate = plan.CoordinateOf(stage, rank);
  const IndexedSchedule& schedule = *stage_run.schedule;
  double ns = 0.0;
  uint32_t farthest = 0;
  for (uint32_t i : schedule.Sends(p.step, rank)) {
    const Transfer& t = schedule.At(p.step, i);
    const uint64_t bytes = plan.TransferBytes(stage, p.next_chunk, t);
    if (bytes == 0) continue;
    ns += host.SendNs(static_cast<double>(bytes));
    if (host.extra_round_trips > 0) {
      farthest = std::max(farthest, Links(dimension).Hops(coordinate, plan.CoordinateOf(stage, t.dst)));
    }
  }
  // The receiver first learns the size: round trips to the step's farthest peer.
  return ns + host.extra_round_trips * 2.0 * farthest * m_topology.Dim(dimension).latency_ns;
}

const DimensionLinks& CollectiveExecutor::Impl::Links(uint32_t dimension) {
  if (m_links.empty()) m_links.resize(m_topology.DimensionCount());
  if (!m_links[dimension]) {
    const Dimension& dim = m_topology.Dim(dimension);
    m_links[dimension] = std::make_unique<DimensionLinks>(dim.kind, dim.size);
  }
  return *m_links[dimension];
}

void CollectiveExecutor::Impl::IssueSends(CollectiveRun& run, CollectiveId id, uint64_t npu,
                                          uint32_t stage) {
  const CollectivePlan& plan = run.plan;
  const StageRun& stage_run = plan.stages[stage];
  const StageProgress& p = run.Progress(npu, stage);
  const uint32_t rank = plan.LocalRank(npu, stage);
  const IndexedSchedule& schedule = *stage_run.schedule;
  size_t snapshot = 0;
  for (uint32_t i : schedule.Sends(p.step, rank)) {
    const Transfer& t = schedule.At(p.step, i);
    const uint64_t bytes = plan.TransferBytes(stage, p.next_chunk, t);
    if (bytes == 0) continue;
    uint32_t slot;
    if (m_free_slots.empty()) {
      slot = static_cast<uint32_t>(m_messages.size());
      m_messages.emplace_back();
      if (m_options.verify) m_payloads.emplace_back();
    } else {
      slot = m_free_slots.back();
      m_free_slots.pop_back();
    }
    MessageRecord& m = m_messages[slot];
    const uint32_t generation = m.generation;
    m = MessageRecord{};
    m.generation = generation;
    m.collective = id;
    m.src = static_cast<uint32_t>(npu);
    m.dst = static_cast<uint32_t>(plan.PeerNpu(npu, stage, t.dst));
    m.stage = stage;
    m.chunk = p.next_chunk;
    m.step = p.step;
    m.transfer = i;
    m.bytes = bytes;
    m.reduce = t.reduce;
    m.live = true;
    m.sent_ns = m_clock.NowNs();
    if (run.replay) {
      m_payloads[slot] = std::move(run.snapshots[plan.Member(npu) * plan.StageCount() + stage][snapshot++]);
    }
    ++run.messages_live;
    ++run.stats.messages_sent;
    run.stats.bytes_sent += bytes;
    const MessageTransport::Message message{(uint64_t{generation} << 32) | slot, m.src, m.dst,
                                            bytes};
    m_transport.Send(message);  // no reference into m_messages is held past this point
  }
}

void CollectiveExecutor::Impl::PullEarly(CollectiveRun& run, uint64_t npu, uint32_t stage) {
  std::vector<uint32_t>& early = run.early[run.plan.Member(npu)];
  if (early.empty()) return;
  const StageProgress& p = run.Progress(npu, stage);
  std::vector<uint32_t> ready;
  for (size_t i = 0; i < early.size();) {
    const MessageRecord& m = m_messages[early[i]];
    if (m.stage == stage && m.chunk == p.next_chunk && m.step == p.step) {
      ready.push_back(early[i]);
      early[i] = early.back();
      early.pop_back();
    } else {
      ++i;
    }
  }
  for (uint32_t slot : ready) Consume(slot);
}

void CollectiveExecutor::Impl::NpuDone(CollectiveRun& run, uint64_t npu) {
  run.done[run.plan.Member(npu)] = 1;
  CollectiveStats& stats = run.stats;
  ++stats.npus_done;
  stats.last_done_ns = m_clock.NowNs();
  std::function<void()> callback = std::move(run.callbacks[run.plan.Member(npu)]);
  if (stats.npus_done == run.plan.members) {
    run.finished = true;
    if (run.replay) {
      if (auto error = run.replay->FinalCheck()) AddError(*error);
    }
    if (run.messages_live == 0) Release(run);
  }
  if (callback) callback();
}

void CollectiveExecutor::Impl::Release(CollectiveRun& run) {
  // Keep only the plan and the counters of a finished collective.
  run.entered = {};
  run.done = {};
  run.callbacks = {};
  run.early = {};
  run.progress = {};
  run.replay.reset();
  run.snapshots = {};
}

std::optional<uint32_t> CollectiveExecutor::Impl::Lookup(uint64_t id, const char* event) {
  const uint64_t slot = id & 0xffffffffu;
  const uint64_t generation = id >> 32;
  if (slot >= m_messages.size() || !m_messages[slot].live ||
      m_messages[slot].generation != generation) {
    AddError("message " + S(id) + " " + event + " but not in flight (" + event +
             " twice, or never sent)");
    return std::nullopt;
  }
  return static_cast<uint32_t>(slot);
}

std::string CollectiveExecutor::Impl::Describe(const MessageRecord& m) const {
  return "message of collective " + S(m.collective) + " from NPU " + S(m.src) + " to NPU " +
         S(m.dst) + " (stage " + S(m.stage) + ", chunk " + S(m.chunk) + ", step " + S(m.step) + ")";
}

void CollectiveExecutor::Impl::OnDelivered(uint64_t id) {
  const auto found = Lookup(id, "delivered");
  if (!found) {
    ++m_duplicate_deliveries;
    return;
  }
  const uint32_t slot = *found;
  MessageRecord& m = m_messages[slot];
  if (m.delivered) {
    ++m_duplicate_deliveries;
    AddError(Describe(m) + " delivered twice");
    return;
  }
  m.delivered = true;
  m.delivered_ns = m_clock.NowNs();
  CollectiveRun& run = *m_runs[m.collective];
  ++run.stats.messages_delivered;
  run.stats.bytes_delivered += m.bytes;
  if (run.finished) {
    // Only with a fault injected: every NPU finished without waiting for this receive.
    AddError(Describe(m) + " delivered after its collective finished");
    m.consumed = true;
  } else {
    const StageProgress& p = run.Progress(m.dst, m.stage);
    const bool entered = run.entered[run.plan.Member(m.dst)] != 0;
    const bool current = entered && p.active && p.next_chunk == m.chunk && p.step == m.step;
    const bool past = entered && (m.chunk < p.next_chunk ||
                                  (p.active && m.chunk == p.next_chunk && m.step < p.step));
    if (current || (past && IgnoresReceives())) {
      Consume(slot);
    } else if (past) {
      AddError(Describe(m) + " delivered after its receiver finished that step");
      m.consumed = true;
    } else {
      run.early[run.plan.Member(m.dst)].push_back(slot);
    }
  }
  MaybeFree(slot);
  Drain();
}

void CollectiveExecutor::Impl::Consume(uint32_t slot) {
  const MessageRecord& m = m_messages[slot];
  const double host_ns = m_spec.host.ReceiveNs(static_cast<double>(m.bytes));
  if (host_ns > 0.0) {
    // One host receive engine per NPU (polling, dispatch, copies out): messages are taken one
    // after another, each when it is there, the NPU has reached its step and the previous one
    // is done; then the reduction, if any.
    const double now = m_clock.NowNs();
    double& free_ns = m_host_free_ns[m.dst];
    free_ns = std::max(free_ns, now) + host_ns;
    m_clock.ScheduleNs(free_ns - now, [this, slot] {
      Reduce(slot);
      Drain();
    });
    return;
  }
  Reduce(slot);
}

void CollectiveExecutor::Impl::Reduce(uint32_t slot) {
  const MessageRecord& m = m_messages[slot];
  if (m.reduce && m_spec.reduction_Bpns > 0.0) {
    // One reduction engine per NPU: reductions run one after another, each starting when its
    // data is there, the NPU has reached its step and the previous reduction is done.
    const double now = m_clock.NowNs();
    double& free_ns = m_reduction_free_ns[m.dst];
    free_ns = std::max(free_ns, now) + static_cast<double>(m.bytes) / m_spec.reduction_Bpns;
    m_clock.ScheduleNs(free_ns - now, [this, slot] {
      FinishReceive(slot);
      Drain();
    });
    return;
  }
  FinishReceive(slot);
}

void CollectiveExecutor::Impl::FinishReceive(uint32_t slot) {
  MessageRecord& m = m_messages[slot];
  m.consumed = true;
  CollectiveRun& run = *m_runs[m.collective];
  if (m.reduce) ++run.stats.reductions_performed;
  if (!run.finished) {
    if (run.replay) {
      const Transfer& t = run.plan.stages[m.stage].schedule->At(m.step, m.transfer);
      if (auto error =
              run.replay->Apply(m.src, m.dst, m.stage, m.chunk, m.step, t, m_payloads[slot])) {
        AddError(*error);
      }
    }
    StageProgress& p = run.Progress(m.dst, m.stage);
    if (p.active && p.next_chunk == m.chunk && p.step == m.step && p.receives_pending > 0) {
      --p.receives_pending;
      Kick(m.collective, m.dst, m.stage);
    } else if (!IgnoresReceives()) {
      AddError(Describe(m) + " counted while its receiver is not in its step");
    }
  }
  MaybeFree(slot);
}

void CollectiveExecutor::Impl::OnAcknowledged(uint64_t id) {
  const auto found = Lookup(id, "acknowledged");
  if (!found) return;
  const uint32_t slot = *found;
  MessageRecord& m = m_messages[slot];
  if (m.acknowledged) {
    AddError(Describe(m) + " acknowledged twice");
    return;
  }
  m.acknowledged = true;
  m.acknowledged_ns = m_clock.NowNs();
  CollectiveRun& run = *m_runs[m.collective];
  ++run.stats.messages_acknowledged;
  StageProgress* p = run.finished ? nullptr : &run.Progress(m.src, m.stage);
  if (p && p->active && p->next_chunk == m.chunk && p->step == m.step && p->sends_pending > 0) {
    --p->sends_pending;
    Kick(m.collective, m.src, m.stage);
  } else {
    AddError(Describe(m) + " acknowledged while its sender is not in its step");
  }
  MaybeFree(slot);
  Drain();
}

void CollectiveExecutor::Impl::MaybeFree(uint32_t slot) {
  MessageRecord& m = m_messages[slot];
  if (!m.live || !m.delivered || !m.acknowledged || !m.consumed) return;
  if (m_options.record_message_times) {
    m_times.push_back({m.collective, static_cast<float>(m.delivered_ns - m.sent_ns),
                       static_cast<float>(m.acknowledged_ns - m.sent_ns)});
  }
  m.live = false;
  ++m.generation;  // a late duplicate of this id no longer matches
  m_free_slots.push_back(slot);
  if (m_options.verify) m_payloads[slot] = {};
  CollectiveRun& run = *m_runs[m.collective];
  if (--run.messages_live == 0 && run.finished) Release(run);
}

bool CollectiveExecutor::Impl::CheckComplete() {
  for (CollectiveId id = 0; id < m_runs.size(); ++id) {
    const CollectiveRun& run = *m_runs[id];
    if (run.finished) continue;
    const uint64_t members = run.plan.members;
    uint64_t first = members;
    for (uint64_t member = 0; member < members && first == members; ++member) {
      if (!run.done[member]) first = member;
    }
    const bool entered = run.entered[first] != 0;
    first = run.plan.Npu(first);
    AddError("collective " + S(id) + ": " + S(members - run.stats.npus_done) + " of " + S(members) +
             " NPUs have not finished, the first NPU " + S(first) +
             (entered ? "" : " (never entered)"));
  }
  // Messages still live, by what they lack; the first undelivered one named (it is usually the
  // cause, the rest waiting behind it).
  uint64_t live = 0, undelivered = 0, unacknowledged = 0, uncounted = 0;
  const MessageRecord* first = nullptr;
  for (const MessageRecord& m : m_messages) {
    if (!m.live) continue;
    ++live;
    if (!m.delivered && ++undelivered == 1) first = &m;
    if (!m.acknowledged) ++unacknowledged;
    if (m.delivered && !m.consumed) ++uncounted;
  }
  if (live > 0) {
    AddError(S(live) + " messages still in flight: " + S(undelivered) + " not delivered, " +
             S(unacknowledged) + " not acknowledged, " + S(uncounted) +
             " delivered but not yet counted by their receivers" +
             (first ? "; the first not delivered: " + Describe(*first) : ""));
  }
  return m_errors.Count() == 0;
}

// ---------------------------------------------------------------------------------------------

CollectiveExecutor::CollectiveExecutor(const Topology& topology,
                                       const CommunicationSpec& communication, EventClock& clock,
                                       MessageTransport& transport, ExecutorOptions options)
    : m_impl(std::make_unique<Impl>(topology, communication, clock, transport, options)) {}

CollectiveExecutor::~CollectiveExecutor() = default;

CollectiveId CollectiveExecutor::Create(CollectiveKind kind, uint64_t size_bytes,
                                        std::vector<uint32_t> dimensions) {
  if (dimensions.empty()) {
    throw std::invalid_argument("CollectiveExecutor::Create: no dimensions");
  }
  return m_impl->Create(kind, size_bytes, CollectiveMembers{std::move(dimensions), {}});
}

CollectiveId CollectiveExecutor::Create(CollectiveKind kind, uint64_t size_bytes,
                                        const CollectiveMembers& members) {
  return m_impl->Create(kind, size_bytes, members);
}

void CollectiveExecutor::Enter(CollectiveId id, uint64_t npu, std::function<void()> done) {
  m_impl->Enter(id, npu, std::move(done));
}

uint32_t CollectiveExecutor::CollectiveCount() const { return m_impl->Count(); }

const CollectiveStats& CollectiveExecutor::Stats(CollectiveId id) const {
  return m_impl->Run(id).stats;
}

bool CollectiveExecutor::Finished(CollectiveId id) const { return m_impl->Run(id).finished; }

CollectiveStats CollectiveExecutor::Totals() const {
  CollectiveStats total;
  for (CollectiveId id = 0; id < m_impl->Count(); ++id) total.Add(m_impl->Run(id).stats);
  return total;
}

const std::vector<std::string>& CollectiveExecutor::Errors() const { return m_impl->Errors(); }
uint64_t CollectiveExecutor::ErrorCount() const { return m_impl->ErrorCount(); }
uint64_t CollectiveExecutor::DuplicateDeliveries() const { return m_impl->DuplicateDeliveries(); }
bool CollectiveExecutor::CheckComplete() { return m_impl->CheckComplete(); }

const std::vector<MessageTiming>& CollectiveExecutor::MessageTimes() const {
  return m_impl->Times();
}

TimeSummary CollectiveExecutor::DeliverySummary() const {
  std::vector<double> values;
  values.reserve(m_impl->Times().size());
  for (const MessageTiming& t : m_impl->Times()) values.push_back(t.delivered_ns);
  return Summarise(std::move(values));
}

TimeSummary CollectiveExecutor::AcknowledgementSummary() const {
  std::vector<double> values;
  values.reserve(m_impl->Times().size());
  for (const MessageTiming& t : m_impl->Times()) values.push_back(t.acknowledged_ns);
  return Summarise(std::move(values));
}

}  // namespace hfsim
