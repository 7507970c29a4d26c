// EventClock on ns-3's simulator (times in ns, ns-3 running at picosecond resolution).
#pragma once

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

}  // namespace hfsim
