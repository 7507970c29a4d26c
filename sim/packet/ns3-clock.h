// EventClock on ns-3's simulator (times in ns, ns-3 running at picosecond resolution).
#pragma once

#include <chrono>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include <ns3/simulator.h>

#include "sim/messages/event-clock.h"

namespace hfsim {

/// ns-3 counts picoseconds in a signed 64-bit integer: 2^63 ps is about 106.75 simulated days.
/// An event past it would wrap around and run at a wrong time, so it is an error instead (the
/// command exits 1 naming the limit; docs/bad-input.md).
inline constexpr double kNs3ClockLimitNs = 9223372036854775.807;

/// ns-3's delay for an event `delay_ps` picoseconds from now, checked against the clock's range.
inline ns3::Time CheckedDelayPs(double delay_ps) {
  if (!(delay_ps >= 0.0)) {
    throw std::logic_error(fmt::format("an event scheduled {} ps in the past", delay_ps));
  }
  const double end_ps = static_cast<double>(ns3::Simulator::Now().GetPicoSeconds()) + delay_ps;
  // Half a microsecond of margin: doubles near 2^63 are 1 kps apart.
  if (!(end_ps < kNs3ClockLimitNs * 1e3 - 5e5)) {
    throw std::runtime_error(fmt::format(
        "the packet simulation would pass {:.6g} ns (an event at {:.6g} ns): ns-3's clock counts "
        "picoseconds in 64 bits and ends at 2^63 ps, about 106.75 simulated days; the analytical "
        "engine has no such limit", kNs3ClockLimitNs, end_ps * 1e-3));
  }
  return ns3::PicoSeconds(std::llround(delay_ps));
}

class Ns3Clock final : public EventClock {
 public:
  double NowNs() const override { return ns3::Simulator::Now().GetPicoSeconds() * 1e-3; }
  void ScheduleNs(double delay_ns, std::function<void()> callback) override {
    ns3::Simulator::Schedule(CheckedDelayPs(delay_ns * 1e3), std::move(callback));
  }
};

/// Runs ns-3's event loop until no event is left; returns the wall-clock seconds it took (for
/// the speed figures printed beside a report, never part of a result).
inline double RunSimulatorTimed() {
  const auto start = std::chrono::steady_clock::now();
  ns3::Simulator::Run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace hfsim
