// The analytical engine: prices the scenario's placed execution graph (sim/scenario/scenario-graph.h),
// every collective in closed form (collective-pricing.h), and plays the graph forward
// (graph-pricing.h). Parameter-server and gossip workloads keep their own drivers.
// Pure: no state, no side effects, safe to call from many threads at once.
#pragma once

#include <optional>

#include "sim/engine.h"
#include "sim/report/timeline.h"

namespace hfsim {

class AnalyticalEngine final : public Engine {
 public:
  Report Run(const Scenario& scenario) const override;
  /// The same report, and every rank class's timeline (graph workloads only; nullopt for the
  /// drivers that are not graphs).
  Report Run(const Scenario& scenario, std::optional<Timeline>& timeline) const;
};

}  // namespace hfsim
