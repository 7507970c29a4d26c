#include "sim/flow/flow-transport.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace hfsim {

FlowTransport::FlowTransport(const FabricGraph& fabric, EventClock& clock, uint64_t seed)
    : m_clock(&clock), m_network(fabric, seed) {}

void FlowTransport::Send(const Message& message) {
  CatchUp();
  // The message's id rides with the flow as its tag: no map from flows back to messages.
  m_network.Start(static_cast<uint32_t>(message.src), static_cast<uint32_t>(message.dst),
                  message.bytes, message.id);
  ++m_messages_sent;
  m_bytes_sent += message.bytes;
  // One wake-up for every message sent at this time: the network solves their rates together.
  if (!m_wake_pending) {
    m_wake_pending = true;
    m_clock->ScheduleNs(0.0, [this] {
      m_wake_pending = false;
      Wake();
    });
  }
}

void FlowTransport::CatchUp() {
  const double now = m_clock->NowNs();
  if (now <= m_network.Now()) return;  // already there: what was due then has been handled
  // Events due by now (within the rounding of the clock's additions) are handled in order.
  while (true) {
    const double next = m_network.NextEvent();
    const bool due = next <= now * (1 + 1e-12);
    const double to = due ? std::max(next, m_network.Now()) : now;
    if (to < m_network.Now()) break;
    // Copied out: the handlers send, and the network reuses its vector (capacity kept here).
    m_arrived = m_network.Advance(to);
    for (const FlowNetwork::Arrival& arrival : m_arrived) {
      ++m_messages_delivered;
      m_bytes_delivered += arrival.bytes;
      if (m_handlers.delivered) m_handlers.delivered(arrival.tag);
      if (m_handlers.acknowledged) m_handlers.acknowledged(arrival.tag);
    }
    if (!due) break;
  }
}

void FlowTransport::Wake() {
  const uint64_t generation = ++m_generation;
  const double next = m_network.NextEvent();
  if (next == std::numeric_limits<double>::infinity()) return;
  m_clock->ScheduleNs(std::max(0.0, next - m_clock->NowNs()), [this, generation] {
    if (generation != m_generation) return;  // the network changed since: a newer one is due
    CatchUp();
    Wake();
  });
}

}  // namespace hfsim
