// The collective executor's inside (collective-executor.h), shared by its two halves:
// collective-executor.cc moves each member through the stages and steps of its collectives and
// sends their messages; collective-messages.cc follows each message from delivery (host receive,
// reduction) and acknowledgement back to the step that waits for it. Not for use elsewhere.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "sim/messages/collective-executor.h"
#include "sim/messages/collective-plan.h"
#include "sim/messages/collective-replay.h"
#include "sim/messages/error-log.h"
#include "topologies/dimension-links.h"

namespace hfsim {
namespace executor {

/// A number in a message (errors name NPUs, stages, steps).
inline std::string S(uint64_t value) { return std::to_string(value); }

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

}  // namespace executor

class CollectiveExecutor::Impl {
  using CollectivePlan = executor::CollectivePlan;
  using CollectiveRun = executor::CollectiveRun;
  using CollectiveReplay = executor::CollectiveReplay;
  using IndexedSchedule = executor::IndexedSchedule;
  using MessageRecord = executor::MessageRecord;
  using StageProgress = executor::StageProgress;
  using StageRun = executor::StageRun;

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
  /// The positions of a whole dimension's ranks in its kind's logical order
  /// (DimensionShape::PositionOfRank); empty when that is position order. Made when first needed.
  const std::vector<uint32_t>& RankOrder(uint32_t dimension);
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
  std::vector<std::optional<std::vector<uint32_t>>> m_rank_order;  ///< per dimension, RankOrder()
  std::vector<WorkItem> m_work;
  bool m_draining = false;
  ErrorLog m_errors;
  uint64_t m_duplicate_deliveries = 0;
  std::vector<MessageTiming> m_times;
};

}  // namespace hfsim
