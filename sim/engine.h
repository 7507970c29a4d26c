// The interface every engine offers: a scenario in, a report out. Engines keep no state between
// runs that could leak from one scenario into the next, so runs can share a process (sweeps).
#pragma once

#include "sim/report/report.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

class Engine {
 public:
  virtual ~Engine() = default;
  virtual Report Run(const Scenario& scenario) const = 0;
};

}  // namespace hfsim
