// Runs collectives message by message: the very schedules the analytical engine prices
// (models/schedule.h, composed over dimensions by models/multi-dim-collective.h), cut into the
// same chunks, sent over a MessageTransport and timed by an EventClock. Holds no ns-3 type.
//
// What mirrors the analytical engine (sim/analytical/collective-pricing.h):
//   * stages = ComposeStages(kind, spec.scheme, dimensions, topology, spec.AlgorithmsFor(kind));
//   * the buffer S is cut into spec.chunks chunks (BlockBytes(S, chunks, c): integers summing to
//     S, the first ones a byte larger); stage s of chunk c has a buffer of
//     round(buffer_fraction_s * chunk bytes) and runs BuildSchedule(stage kind, algorithm, n) in
//     every group of its dimension at once; a transfer carries
//     BlockRunBytes(stage buffer, block_count, first_block, block_count) bytes;
//   * endpoint_delay_ns once per step, before the NPU's sends of that step, plus the host
//     stack's send cost of each of those sends and its extra round trips to the step's farthest
//     peer (models/host-stack.h); after delivery, the host's receive cost of each message on a
//     serial receive engine per NPU, before any reduction;
//   * with reduction_Bpns > 0, a reducing receive counts as done bytes / reduction_Bpns after it
//     was delivered; an NPU's reductions queue one after another (one reduction engine per NPU).
//
// What differs on purpose: there is no global step barrier and no pipeline formula. Each NPU
// moves on by itself, as on a real fabric:
//   * it starts step k of a stage when its step k-1 sends are all acknowledged and its step k-1
//     receives all done (delivered and, if reducing, reduced);
//   * it starts stage s of chunk c when it has finished stage s-1 of chunk c and stage s of
//     chunk c-1;
//   * a message may arrive before its receiver entered the collective or reached that step (an
//     RDMA write into a registered buffer): it is kept and counted when the receiver gets there;
//   * transfers of 0 bytes are done at once and send nothing.
//
// Memory: state per (collective, NPU, stage) and per message in flight, all in vectors indexed by
// number; a collective's per-NPU state is released when its last NPU finishes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/collective.h"
#include "sim/messages/event-clock.h"
#include "sim/messages/executor-stats.h"
#include "sim/scenario/scenario.h"
#include "topologies/topology.h"

namespace hfsim {

using CollectiveId = uint32_t;

/// The NPUs one collective runs on and the order of its stages: every NPU whose coordinate
/// along each dimension d is one of `coordinates[d]` (ascending; an empty list takes the whole
/// dimension). Its stages run along `dimensions`, each at once in every line of members along
/// that dimension, with that line's size as the schedule's peer count. A whole dimension, part
/// of one, a strided set, several dimensions, or many such groups side by side are all this.
struct CollectiveMembers {
  std::vector<uint32_t> dimensions;
  std::vector<std::vector<uint32_t>> coordinates;
};

struct ExecutorOptions {
  /// Replays every stage symbolically while it runs (the semantics of models/schedule-check.h on
  /// what actually happened) and records any violation in Errors(). Costs
  /// peers x blocks x peers bits per group while a stage runs there: fine for hundreds of NPUs.
  bool verify = false;
  /// Keeps every message's MessageTiming (12 bytes a message) for MessageTimes() and the
  /// summaries. Off: the summaries are empty.
  bool record_message_times = true;

  /// Deliberate executor bugs, so that tests can show the verification catches them. Never set
  /// outside tests.
  enum class Fault {
    kNone,
    /// A step ends when its sends are acknowledged, without waiting for its receives.
    kStepIgnoresReceives,
  };
  Fault fault = Fault::kNone;
};

class CollectiveExecutor {
 public:
  /// Calls transport.SetHandlers. The executor must outlive every event it schedules on `clock`
  /// and every message it sends. Throws std::invalid_argument when the fabric has 2^32 NPUs or
  /// more.
  CollectiveExecutor(const Topology& topology, const CommunicationSpec& communication,
                     EventClock& clock, MessageTransport& transport, ExecutorOptions options = {});
  ~CollectiveExecutor();
  CollectiveExecutor(const CollectiveExecutor&) = delete;
  CollectiveExecutor& operator=(const CollectiveExecutor&) = delete;

  /// A collective of `size_bytes` (the whole per-NPU buffer, workloads/collective-kind.h) over
  /// `dimensions` (stage order). Every NPU of the fabric takes part: it is in exactly one group
  /// of those dimensions. Throws std::invalid_argument for an empty or invalid dimension list or
  /// an algorithm that cannot run one of its stages.
  CollectiveId Create(CollectiveKind kind, uint64_t size_bytes, std::vector<uint32_t> dimensions);
  /// A collective over `members` only (see CollectiveMembers). Throws std::invalid_argument for
  /// coordinates outside the fabric, unsorted or repeated, a stage dimension the fabric lacks,
  /// or an algorithm that cannot run a stage at its line's size.
  CollectiveId Create(CollectiveKind kind, uint64_t size_bytes, const CollectiveMembers& members);

  /// NPU `npu` (a member) reaches collective `id` now. `done` runs (from inside the executor, possibly
  /// before Enter returns) when this NPU's part is complete: its last stage of its last chunk.
  /// Throws std::invalid_argument for an unknown id or NPU, std::logic_error when the NPU
  /// already entered.
  void Enter(CollectiveId id, uint64_t npu, std::function<void()> done);

  uint32_t CollectiveCount() const;
  const CollectiveStats& Stats(CollectiveId id) const;
  /// Whether every NPU has finished collective `id`.
  bool Finished(CollectiveId id) const;
  /// Stats summed over all collectives created so far.
  CollectiveStats Totals() const;

  /// Protocol violations seen so far (a message delivered or acknowledged twice or never sent,
  /// an acknowledgement for a step its sender is not in, verification failures), the first 100
  /// in full; ErrorCount() counts all of them.
  const std::vector<std::string>& Errors() const;
  uint64_t ErrorCount() const;
  /// Of those errors, deliveries of a message already delivered (or never sent).
  uint64_t DuplicateDeliveries() const;
  /// Checks what must hold once the event loop has drained: every created collective finished by
  /// every NPU, no message in flight, and with verification every stage of every chunk verified
  /// at every NPU. Adds what fails to Errors(); returns true when there are no errors at all.
  bool CheckComplete();

  /// Completed messages in completion order (if recorded).
  const std::vector<MessageTiming>& MessageTimes() const;
  TimeSummary DeliverySummary() const;
  TimeSummary AcknowledgementSummary() const;

 private:
  class Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace hfsim
