// The interface every engine offers: a scenario and run options in, a report out. Engines keep
// no state between runs that could leak from one scenario into the next, so runs can share a
// process (sweeps). Which engines there are, and what each supports: sim/engines/engine-table.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "sim/report/report.h"
#include "sim/scenario/scenario.h"

namespace hfsim {

/// How one run is watched and what it fills besides the report's results; none of it changes
/// the results.
struct RunOptions {
  /// Fill Report::timeline with what each rank class's first rank did (engines whose row in the
  /// engine table says timeline; graph workloads only).
  bool timeline = false;
  /// Called while the run goes with the simulated time reached (ns) and the events run, at most
  /// once per `progress_interval` of wall time (engines whose row says progress).
  std::function<void(double simulated_ns, uint64_t events)> progress;
  std::chrono::milliseconds progress_interval{200};
  /// The packet engine also replays every stage symbolically while it runs and counts any
  /// violation (a contribution reduced twice or never) in the report's protocol_errors. Costs
  /// memory per group of peers x blocks x peers bits; meant for tests and small fabrics.
  bool verify_schedules = false;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual Report Run(const Scenario& scenario, const RunOptions& options) const = 0;
  /// A plain run: no timeline, no progress.
  Report Run(const Scenario& scenario) const { return Run(scenario, RunOptions{}); }
};

}  // namespace hfsim
