// The analytical engine: prices every collective of a scenario in closed form
// (collective-pricing.h) and plays the training loop forward (workloads/training-loop.h).
// Pure: no state, no side effects, safe to call from many threads at once.
#pragma once

#include "sim/engine.h"

namespace hfsim {

class AnalyticalEngine final : public Engine {
 public:
  Report Run(const Scenario& scenario) const override;
};

}  // namespace hfsim
