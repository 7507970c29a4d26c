// The static description of one collective in the executor (collective-executor.h): the
// schedule of each stage indexed for one rank's view, the stages' buffers per chunk, and which
// NPUs take part and how their ids map to member indices and local ranks. Internal to
// sim/packet: the analytical engine's CollectivePlan (sim/analytical/collective-pricing.h) is
// another thing, hence the namespace.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/multi-dim-collective.h"
#include "models/schedule.h"

namespace hfsim::executor {

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

}  // namespace hfsim::executor
