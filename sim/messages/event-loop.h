// The one event loop of the engines that keep their own time: the flow engine's clock, and the
// fake network the message runtime's tests run on (the packet engine runs on ns-3's scheduler,
// sim/packet/ns3-clock.h). Events run in time order, and events due at the same time in the
// order they were scheduled: a binary heap keyed by time, then by a sequence number.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "sim/messages/event-clock.h"

namespace hfsim {

class EventLoop final : public EventClock {
 public:
  /// Simulated time reached (ns) and events run so far.
  using Progress = std::function<void(double simulated_ns, uint64_t events)>;

  double NowNs() const override { return m_now; }
  /// Throws std::invalid_argument for a negative (or NaN) delay.
  void ScheduleNs(double delay_ns, std::function<void()> callback) override;
  /// Runs every event, and those they schedule, until none is left or `max_events` have run.
  /// Returns how many ran.
  uint64_t Run(uint64_t max_events = std::numeric_limits<uint64_t>::max());
  /// Called during Run with the simulated time and the events run so far, at most once per
  /// `interval` of wall time (a terminal's progress line). Results do not depend on it.
  void SetProgress(Progress hook, std::chrono::milliseconds interval) {
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
  Progress m_progress;
  std::chrono::milliseconds m_progress_interval{200};
};

}  // namespace hfsim
