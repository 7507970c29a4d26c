// EventClock on ns-3's simulator (times in ns, ns-3 running at picosecond resolution).
#pragma once

#include <chrono>
#include <cmath>

#include <ns3/simulator.h>

#include "sim/packet/event-clock.h"

namespace hfsim {

class Ns3Clock final : public EventClock {
 public:
  double NowNs() const override { return ns3::Simulator::Now().GetPicoSeconds() * 1e-3; }
  void ScheduleNs(double delay_ns, std::function<void()> callback) override {
    ns3::Simulator::Schedule(ns3::PicoSeconds(std::llround(delay_ns * 1e3)), std::move(callback));
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
