#include "sim/messages/gossip-driver.h"

#include <fmt/format.h>

#include <stdexcept>

namespace hfsim {

GossipDriver::GossipDriver(EventClock& clock, MessageTransport& transport, const GossipTrace& trace,
                           std::vector<uint32_t> node_npus, uint32_t steps, double step_compute_ns)
    : m_clock(clock),
      m_transport(transport),
      m_trace(trace),
      m_node_npus(std::move(node_npus)),
      m_step_compute_ns(step_compute_ns),
      m_step_first(StepMessageStarts(trace, steps)),
      m_delivered(trace.messages.size(), false),
      m_sent_ns(trace.messages.size(), 0.0),
      m_step_end_ns(steps, 0.0) {
  for (const ExchangeMessage& m : trace.messages) {
    if (m.from >= m_node_npus.size() || m.to >= m_node_npus.size()) {
      throw std::invalid_argument("GossipDriver: a message names a node without an NPU");
    }
  }
  m_transport.SetHandlers({[this](uint64_t id) { OnDelivered(id); }, [](uint64_t) {}});
}

void GossipDriver::Start() {
  if (!m_step_end_ns.empty()) StartStep(0);
}

void GossipDriver::StartStep(uint32_t step) {
  m_current = step;
  // Through the clock even without compute, so that many steps without messages do not nest
  // calls.
  m_clock.ScheduleNs(m_step_compute_ns, [this, step] { SendExchanges(step); });
}

void GossipDriver::SendExchanges(uint32_t step) {
  const size_t first = m_step_first[step];
  const size_t end = m_step_first[step + 1];
  m_pending = static_cast<uint32_t>(end - first);
  if (m_pending == 0) {
    EndStep();
    return;
  }
  const double now = m_clock.NowNs();
  for (size_t id = first; id < end; ++id) {
    const ExchangeMessage& m = m_trace.messages[id];
    m_sent_ns[id] = now;
    const uint32_t from = m_node_npus[m.from];
    const uint32_t to = m_node_npus[m.to];
    if (from == to) {
      m_clock.ScheduleNs(0.0, [this, id] { OnDelivered(id); });
      continue;
    }
    ++m_network_messages_sent;
    m_network_bytes_sent += m.bytes;
    m_transport.Send({id, from, to, m.bytes});
  }
}

void GossipDriver::OnDelivered(uint64_t id) {
  if (id >= m_delivered.size()) {
    m_errors.Add(fmt::format("message {} delivered but never sent", id));
    return;
  }
  if (m_delivered[id]) {
    m_errors.Add(fmt::format("message {} delivered twice", id));
    return;
  }
  const ExchangeMessage& m = m_trace.messages[id];
  if (m.step != m_current) {
    m_errors.Add(
        fmt::format("message {} of step {} delivered during step {}", id, m.step, m_current));
    return;
  }
  m_delivered[id] = true;
  ++m_messages_delivered;
  if (m_node_npus[m.from] != m_node_npus[m.to]) {
    m_network_bytes_delivered += m.bytes;
    m_delivery_ns.push_back(m_clock.NowNs() - m_sent_ns[id]);
  }
  if (--m_pending == 0) EndStep();
}

void GossipDriver::EndStep() {
  m_step_end_ns[m_current] = m_clock.NowNs();
  ++m_steps_done;
  if (m_current + 1 < m_step_end_ns.size()) StartStep(m_current + 1);
}

bool GossipDriver::CheckComplete() {
  if (!Finished()) {
    m_errors.Add(fmt::format("{} of {} steps finished", m_steps_done, m_step_end_ns.size()));
  }
  uint64_t undelivered = 0;
  for (bool delivered : m_delivered) undelivered += delivered ? 0 : 1;
  if (undelivered > 0) m_errors.Add(fmt::format("{} messages never delivered", undelivered));
  return m_errors.Count() == 0;
}

}  // namespace hfsim
