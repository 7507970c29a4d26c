// The packet-level engine: the same scenario as the analytical engine, simulated packet by
// packet on ns-3 (queues, congestion, incast, loss). This header holds no ns-3 type; everything
// ns-3 lives behind Run in packet-engine.cc.
//
// ns-3 keeps one simulator per process, so packet runs in one process happen one after
// another (Run owns Simulator::Destroy); parallel sweeps use processes.
#pragma once

#include <optional>

#include "sim/engine.h"
#include "sim/report/timeline.h"
#include "sim/packet/event-scheduler.h"

namespace hfsim {

class PacketEngine final : public Engine {
 public:
  /// `verify_schedules`: also replay every stage symbolically while it runs and count any
  /// violation (a contribution reduced twice or never) in the report's protocol_errors. Costs
  /// memory per group of peers x blocks x peers bits; meant for tests and small fabrics.
  explicit PacketEngine(bool verify_schedules = false) : m_verify(verify_schedules) {}
  /// Reports the simulated time reached while Run runs (a terminal's progress line); the run's
  /// results do not depend on it.
  void SetProgress(SimulationProgressHook hook,
                   std::chrono::milliseconds interval = std::chrono::milliseconds(200)) {
    m_progress = std::move(hook);
    m_progress_interval = interval;
  }
  Report Run(const Scenario& scenario) const override;
  /// Also fills `timeline` (when it holds a value on entry) for training, collective and graph
  /// workloads: each rank class's first rank's nodes from start to end as measured; reset for
  /// the others.
  Report Run(const Scenario& scenario, std::optional<Timeline>& timeline) const;

 private:
  bool m_verify;
  SimulationProgressHook m_progress;
  std::chrono::milliseconds m_progress_interval{200};
};

}  // namespace hfsim
