// The flow engine's two services for the graph driver and the collective executor
// (sim/packet/event-clock.h): a plain event loop, and message delivery by FlowNetwork. With
// them the same driver that runs a graph on ns-3 packets runs it on fluid flows.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/flow/flow-network.h"
#include "sim/packet/event-clock.h"

namespace hfsim {

/// Events in time order; events due at the same time run in the order they were scheduled.
class FlowClock : public EventClock {
 public:
  double NowNs() const override { return m_now; }
  void ScheduleNs(double delay_ns, std::function<void()> callback) override;
  /// Runs every event, and those they schedule, until none is left. Returns how many ran.
  uint64_t Run();
  /// Called during Run with the simulated time and the events run so far, at most once per
  /// `interval` of wall time (a terminal's progress line). Results do not depend on it.
  void SetProgress(std::function<void(double simulated_ns, uint64_t events)> hook,
                   std::chrono::milliseconds interval) {
    m_progress = std::move(hook);
    m_progress_interval = interval;
  }

 private:
  struct Event {
    double at;
    uint64_t sequence;
    std::function<void()> callback;
  };
  double m_now = 0.0;
  uint64_t m_sequence = 0;
  std::vector<Event> m_heap;  // std::push_heap / pop_heap: the earliest on top
  std::function<void(double, uint64_t)> m_progress;
  std::chrono::milliseconds m_progress_interval{200};
};

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
