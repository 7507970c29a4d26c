// The flow-level engine: the scenario's execution graph run message by message, as the packet
// engine runs it (the same graph driver and collective executor), with every message a fluid
// flow whose rate max-min fairness sets among the flows sharing its links (FlowNetwork). It
// sees congestion the analytical engine cannot, at a fraction of the packet engine's cost, and
// has no queues and no loss.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "sim/engine.h"
#include "sim/report/timeline.h"

namespace hfsim {

class FlowEngine : public Engine {
 public:
  /// Reports the simulated time reached and the events run while Run runs (a terminal's
  /// progress line); the run's results do not depend on it.
  void SetProgress(std::function<void(double simulated_ns, uint64_t events)> hook,
                   std::chrono::milliseconds interval = std::chrono::milliseconds(200)) {
    m_progress = std::move(hook);
    m_progress_interval = interval;
  }
  Report Run(const Scenario& scenario) const override;
  /// With `timeline` holding a value on entry, also fills it with what each class's first
  /// rank did.
  Report Run(const Scenario& scenario, std::optional<Timeline>& timeline) const;

 private:
  std::function<void(double, uint64_t)> m_progress;
  std::chrono::milliseconds m_progress_interval{200};
};

}  // namespace hfsim
