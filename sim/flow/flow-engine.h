// The flow-level engine: the scenario's execution graph run message by message, as the packet
// engine runs it (the same graph driver and collective executor), with every message a fluid
// flow whose rate max-min fairness sets among the flows sharing its links (FlowNetwork). It
// sees congestion the analytical engine cannot, at a fraction of the packet engine's cost, and
// has no queues and no loss.
#pragma once

#include "sim/engine.h"

namespace hfsim {

class FlowEngine final : public Engine {
 public:
  using Engine::Run;
  /// options.progress hears the simulated time reached and the events run (the flow clock's);
  /// options.timeline asks for what each class's first rank did.
  Report Run(const Scenario& scenario, const RunOptions& options) const override;
};

}  // namespace hfsim
