// The flow engine's transport for the graph driver and the collective executor
// (sim/messages/event-clock.h): message delivery by FlowNetwork, on the message runtime's event
// loop (sim/messages/event-loop.h). With it the same driver that runs a graph on ns-3 packets
// runs it on fluid flows.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/flow/flow-network.h"
#include "sim/messages/event-clock.h"

namespace hfsim {

/// Messages as flows: a message is delivered when its last byte arrives (FlowNetwork), and its
/// sender learns of it then. A fluid model has no acknowledgement round trip: as in the
/// analytical engine's closed forms, a step ends when its data is there (the packet engine
/// models the acknowledgement's way back, which adds a route latency per step).
class FlowTransport : public MessageTransport {
 public:
  /// `seed`: ECMP's (FlowNetwork).
  FlowTransport(const FabricGraph& fabric, EventClock& clock, uint64_t seed = 0);
  void SetHandlers(Handlers handlers) override { m_handlers = std::move(handlers); }
  void Send(const Message& message) override;
  const FlowNetwork& Network() const { return m_network; }
  /// Messages and their bytes handed to Send, and those delivered (equal at the end of a run).
  uint64_t MessagesSent() const { return m_messages_sent; }
  uint64_t MessagesDelivered() const { return m_messages_delivered; }
  uint64_t BytesSent() const { return m_bytes_sent; }
  uint64_t BytesDelivered() const { return m_bytes_delivered; }

 private:
  // Brings the network to the clock's time, delivering what arrives on the way.
  void CatchUp();
  // Schedules a wake-up at the network's next event; earlier wake-ups become stale.
  void Wake();

  EventClock* m_clock;
  FlowNetwork m_network;
  Handlers m_handlers;
  std::vector<FlowNetwork::Arrival> m_arrived;  // the arrivals being delivered
  uint64_t m_generation = 0;
  bool m_wake_pending = false;  // a wake-up is due at this time already
  uint64_t m_messages_sent = 0;
  uint64_t m_messages_delivered = 0;
  uint64_t m_bytes_sent = 0;
  uint64_t m_bytes_delivered = 0;
};

}  // namespace hfsim
