// The two services the collective executor needs from a packet simulation, as plain interfaces
// so that the executor holds no ns-3 type (and can be tested with a trivial event loop).
#pragma once

#include <cstdint>
#include <functional>

namespace hfsim {

/// Simulated time and timers. Times in ns (fractions allowed: the ns-3 engine runs in ps).
class EventClock {
 public:
  virtual ~EventClock() = default;
  virtual double NowNs() const = 0;
  /// Runs `callback` `delay_ns` from now (>= 0). Callbacks due at the same time run in the order
  /// they were scheduled.
  virtual void ScheduleNs(double delay_ns, std::function<void()> callback) = 0;
};

/// Reliable delivery of messages between NPUs. The transport reports each message twice: when
/// its last byte is delivered at the destination (exactly once, whatever was lost and resent on
/// the way) and when the sender learns that (its final acknowledgement).
class MessageTransport {
 public:
  struct Message {
    uint64_t id = 0;  ///< chosen by the caller, unique among messages in flight
    uint64_t src = 0;
    uint64_t dst = 0;
    uint64_t bytes = 0;  ///< > 0
  };
  struct Handlers {
    std::function<void(uint64_t id)> delivered;     ///< at the destination
    std::function<void(uint64_t id)> acknowledged;  ///< back at the source
  };

  virtual ~MessageTransport() = default;
  virtual void SetHandlers(Handlers handlers) = 0;
  virtual void Send(const Message& message) = 0;
};

}  // namespace hfsim
