// The collective executor (collective-executor.h): creating a collective over its members, and
// moving each member through its stages and steps, sending each step's messages. What happens to
// a message after it is sent is in collective-messages.cc.
#include "sim/messages/collective-executor.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "models/multi-dim-collective.h"
#include "models/schedule.h"
#include "sim/messages/collective-executor-impl.h"
#include "workloads/graph/group-shape.h"

namespace hfsim {

using executor::IndexedSchedule;
using executor::S;

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
    // A whole dimension's ranks in its kind's logical order, as the analytical engine places
    // them (position order on most kinds).
    const std::vector<uint32_t>& order = RankOrder(d);
    if (coordinates.size() == size && !order.empty()) coordinates = order;
    plan.whole &= coordinates.size() == size && order.empty();
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

double CollectiveExecutor::Impl::HostSendNs(CollectiveRun& run, uint64_t npu, uint32_t stage) {
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
      farthest =
          std::max(farthest, Links(dimension).Hops(coordinate, plan.CoordinateOf(stage, t.dst)));
    }
  }
  // The receiver first learns the size: round trips to the step's farthest peer.
  return ns + host.extra_round_trips * 2.0 * farthest * m_topology.Dim(dimension).latency_ns;
}

const std::vector<uint32_t>& CollectiveExecutor::Impl::RankOrder(uint32_t dimension) {
  if (m_rank_order.empty()) m_rank_order.resize(m_topology.DimensionCount());
  std::optional<std::vector<uint32_t>>& order = m_rank_order[dimension];
  if (!order) {
    const DimensionShape& shape = Links(dimension).Shape();
    order.emplace(shape.Size());
    bool in_position_order = true;
    for (uint32_t rank = 0; rank < shape.Size(); ++rank) {
      (*order)[rank] = shape.PositionOfRank(rank);
      in_position_order &= (*order)[rank] == rank;
    }
    if (in_position_order) order->clear();
  }
  return *order;
}

const DimensionLinks& CollectiveExecutor::Impl::Links(uint32_t dimension) {
  if (m_links.empty()) m_links.resize(m_topology.DimensionCount());
  if (!m_links[dimension]) {
    const Dimension& dim = m_topology.Dim(dimension);
    m_links[dimension] = std::make_unique<DimensionLinks>(dim);
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
      m_payloads[slot] =
          std::move(run.snapshots[plan.Member(npu) * plan.StageCount() + stage][snapshot++]);
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
