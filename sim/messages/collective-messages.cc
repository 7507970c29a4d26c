// A message's life in the collective executor, after it was sent (collective-executor.cc): its
// delivery, the host's receive and the reduction that count it at its receiver's step, its
// acknowledgement back at the sender's step, and the slot freed when all of that happened.
#include <algorithm>
#include <string>

#include "sim/messages/collective-executor-impl.h"

namespace hfsim {

using executor::S;

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


}  // namespace hfsim
