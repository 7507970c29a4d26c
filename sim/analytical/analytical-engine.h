// The analytical engine: prices the scenario's placed execution graph (sim/scenario/scenario-graph.h),
// every collective in closed form (collective-pricing.h), and plays the graph forward
// (graph-pricing.h). Parameter-server and gossip workloads keep their own drivers.
// Pure: no state, no side effects, safe to call from many threads at once.
#pragma once

#include "sim/engine.h"

namespace hfsim {

class AnalyticalEngine final : public Engine {
 public:
  using Engine::Run;
  /// With options.timeline, also every rank class's timeline (graph workloads only; none for
  /// the drivers that are not graphs). Runs no progress hook: it takes microseconds.
  Report Run(const Scenario& scenario, const RunOptions& options) const override;
};

}  // namespace hfsim
